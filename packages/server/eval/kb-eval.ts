// `npm run eval:kb`: how well the knowledge-base engine finds the right entry for paraphrased questions, and
// how well it keeps quiet on questions it has no entry for. Loads kb-fixture.json (entries with customer
// paraphrases; off-topic questions; no-answer questions that share words with entries, the hard case) into an
// in-memory PGlite, asks every question through the same retrieval and threshold the agent uses, and prints, per
// mode: top-1, answered right / answered wrong at the threshold, no-answer questions correctly not answered,
// latency p50/p99 and memory. `--verbose` lists the misses. The fixture was written apart from the tuning.
import { readFile } from 'node:fs/promises';
import { ANSWER_THRESHOLD } from '../src/agent/engines/knowledge-base-engine.ts';
import { openDatabase } from '../src/db/client.ts';
import { accounts } from '../src/db/schema.ts';
import { createKnowledgeService } from '../src/knowledge/knowledge-service.ts';
import { createKnowledgeStore } from '../src/knowledge/knowledge-store.ts';
import { createRetriever } from '../src/knowledge/retrieval.ts';
import { systemClock } from '../src/lib/clock.ts';
import { newId } from '../src/lib/ids.ts';

interface Fixture {
  language: string;
  entries: { question: string; synonyms: string[]; answer: string; paraphrases: string[] }[];
  offTopic: string[];
  noAnswer: string[];
}

const verbose = process.argv.includes('--verbose');
const fixture = JSON.parse(await readFile(new URL('./kb-fixture.json', import.meta.url), 'utf8')) as Fixture;

const pct = (n: number, of: number) => (of === 0 ? '-' : `${((100 * n) / of).toFixed(1)}%`);
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

const rssBefore = process.memoryUsage().rss;
const database = await openDatabase({ kind: 'pglite' });
try {
  const accountId = newId();
  await database.db.insert(accounts).values({ id: accountId, email: 'eval@example.com', passwordHash: '-' });
  const store = createKnowledgeStore(database.db);
  const knowledge = createKnowledgeService({ store, clock: systemClock });
  const base = await knowledge.createKnowledgeBase(accountId, { name: 'eval', language: fixture.language });
  const idOf = new Map<number, string>();
  for (const [index, entry] of fixture.entries.entries()) {
    const created = await knowledge.addEntry(accountId, base.id, { ...entry, source: 'manual' });
    idOf.set(index, created.id);
  }
  const retriever = createRetriever(store);

  const misses: string[] = [];
  /** Best score per paraphrase with whether its entry was the right one, and per unanswerable question: the sweep. */
  const outcomes: { score: number; right: boolean }[] = [];
  const unanswerable: { score: number; hard: boolean }[] = [];
  const latencies: number[] = [];
  const ask = async (text: string) => {
    const started = performance.now();
    const [best] = await retriever.retrieve(base.id, fixture.language, text, 1);
    latencies.push(performance.now() - started);
    return best;
  };
  for (const [index, entry] of fixture.entries.entries()) {
    for (const paraphrase of entry.paraphrases) {
      const best = await ask(paraphrase);
      const right = best?.id === idOf.get(index);
      const score = best?.exact ? 1 : (best?.score ?? 0);
      outcomes.push({ score, right });
      if (!right || score < ANSWER_THRESHOLD) {
        misses.push(`${right ? 'below threshold' : 'wrong entry'} (${score}): "${paraphrase}" → ${best ? `"${best.question}"` : 'nothing'}; expected "${entry.question}"`);
      }
    }
  }
  for (const [hard, questions] of [[false, fixture.offTopic], [true, fixture.noAnswer]] as const) {
    for (const question of questions) {
      const best = await ask(question);
      const score = best?.exact ? 1 : (best?.score ?? 0);
      unanswerable.push({ score, hard });
      if (score >= ANSWER_THRESHOLD) misses.push(`no-answer question answered (${score}): "${question}" → "${best?.question}"`);
    }
  }

  const paraphrases = outcomes.length;
  const at = (threshold: number) => ({
    right: outcomes.filter((o) => o.right && o.score >= threshold).length,
    wrong: outcomes.filter((o) => !o.right && o.score >= threshold).length,
    silentHard: unanswerable.filter((u) => u.hard && u.score < threshold).length,
    silentOff: unanswerable.filter((u) => !u.hard && u.score < threshold).length,
  });
  const shipped = at(ANSWER_THRESHOLD);
  const top1 = outcomes.filter((o) => o.right).length;
  const hard = fixture.noAnswer.length;
  const off = fixture.offTopic.length;
  console.log(`knowledge-base engine, ${fixture.entries.length} entries; ${paraphrases} paraphrases, ${hard} no-answer questions sharing words with entries, ${off} off-topic`);
  console.log(`mode lexical (today's BM25F), threshold ${ANSWER_THRESHOLD}`);
  console.log(`  top-1 (right entry ranked first):      ${top1}/${paraphrases} = ${pct(top1, paraphrases)}`);
  console.log(`  answered right at the threshold:       ${shipped.right}/${paraphrases} = ${pct(shipped.right, paraphrases)}`);
  console.log(`  answered wrong at the threshold:       ${shipped.wrong}/${paraphrases} = ${pct(shipped.wrong, paraphrases)}`);
  console.log(`  no-answer questions not answered:      ${shipped.silentHard}/${hard} = ${pct(shipped.silentHard, hard)}`);
  console.log(`  off-topic questions not answered:      ${shipped.silentOff}/${off} = ${pct(shipped.silentOff, off)}`);
  console.log(`  latency per question: p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms (PGlite, in memory)`);
  console.log(`  resident memory: ${((process.memoryUsage().rss - rssBefore) / 2 ** 20).toFixed(0)} MB over the process's start`);
  console.log('  threshold sweep: threshold → answered right / answered wrong / no-answer silent / off-topic silent');
  for (const threshold of [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6]) {
    const r = at(threshold);
    console.log(`    ${threshold.toFixed(2)} → ${pct(r.right, paraphrases)} / ${pct(r.wrong, paraphrases)} / ${pct(r.silentHard, hard)} / ${pct(r.silentOff, off)}`);
  }
  if (verbose) for (const miss of misses) console.log(`  ${miss}`);
} finally {
  await database.close();
}
