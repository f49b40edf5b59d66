// `npm run eval:kb`: how well the knowledge-base engine finds the right entry for paraphrased questions.
// Loads kb-fixture.json (entries with 3 customer paraphrases each, plus off-topic questions) into an in-memory
// PGlite, asks every paraphrase through the same retrieval and threshold the agent uses, and prints top-1
// accuracy. `--verbose` lists the misses. The fixture was written apart from the tuning, as customers would ask.
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
}

const verbose = process.argv.includes('--verbose');
const fixture = JSON.parse(await readFile(new URL('./kb-fixture.json', import.meta.url), 'utf8')) as Fixture;
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

  let top1 = 0;
  let answered = 0;
  let wrong = 0;
  let questions = 0;
  const misses: string[] = [];
  /** Best score per question, with whether its entry was the right one: the threshold sweep below. */
  const outcomes: { score: number; right: boolean }[] = [];
  const offTopicScores: number[] = [];
  const started = performance.now();
  for (const [index, entry] of fixture.entries.entries()) {
    for (const paraphrase of entry.paraphrases) {
      questions += 1;
      const [best] = await retriever.retrieve(base.id, fixture.language, paraphrase, 1);
      const right = best?.id === idOf.get(index);
      const passes = best !== undefined && (best.exact || best.score >= ANSWER_THRESHOLD);
      if (right) top1 += 1;
      if (right && passes) answered += 1;
      if (!right && passes) wrong += 1;
      outcomes.push({ score: best?.exact ? 1 : (best?.score ?? 0), right });
      if (!right || !passes) {
        misses.push(`${right ? 'below threshold' : 'wrong entry'} (${best?.score ?? 0}): "${paraphrase}" → ${best ? `"${best.question}"` : 'nothing'}; expected "${entry.question}"`);
      }
    }
  }
  let offTopicAnswered = 0;
  for (const question of fixture.offTopic) {
    const [best] = await retriever.retrieve(base.id, fixture.language, question, 1);
    offTopicScores.push(best?.exact ? 1 : (best?.score ?? 0));
    if (best && (best.exact || best.score >= ANSWER_THRESHOLD)) {
      offTopicAnswered += 1;
      misses.push(`off-topic answered (${best.score}): "${question}" → "${best.question}"`);
    }
  }
  const elapsed = performance.now() - started;
  const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`;
  console.log(`knowledge-base engine, ${fixture.entries.length} entries, ${questions} paraphrased questions (threshold ${ANSWER_THRESHOLD})`);
  console.log(`top-1 accuracy (right entry ranked first):      ${top1}/${questions} = ${pct(top1, questions)}`);
  console.log(`answered with the right entry (above threshold): ${answered}/${questions} = ${pct(answered, questions)}`);
  console.log(`answered with a wrong entry:                     ${wrong}/${questions} = ${pct(wrong, questions)}`);
  console.log(`fallback instead of an answer:                   ${questions - answered - wrong}/${questions}`);
  console.log(`off-topic questions answered (should be 0):      ${offTopicAnswered}/${fixture.offTopic.length}`);
  console.log(`mean lookup time: ${(elapsed / (questions + fixture.offTopic.length)).toFixed(1)} ms (PGlite, in memory)`);
  console.log('threshold sweep: threshold → answered right / answered wrong / off-topic answered');
  for (const threshold of [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6]) {
    const right = outcomes.filter((o) => o.right && o.score >= threshold).length;
    const wrongAt = outcomes.filter((o) => !o.right && o.score >= threshold).length;
    const off = offTopicScores.filter((score) => score >= threshold).length;
    console.log(`  ${threshold.toFixed(2)} → ${pct(right, questions)} / ${pct(wrongAt, questions)} / ${off}/${fixture.offTopic.length}`);
  }
  if (verbose) for (const miss of misses) console.log(`  ${miss}`);
} finally {
  await database.close();
}
