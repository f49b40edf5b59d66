// `npm run eval:kb`: how well the knowledge-base engine finds the right entry for paraphrased questions, and
// how well it keeps quiet on questions it has no entry for. Loads kb-fixture.json (entries with customer
// paraphrases; off-topic questions; no-answer questions that share words with entries, the hard case) into an
// in-memory PGlite, computes the entries' sentence vectors as the server does, asks every question through the
// same retrieval and threshold the agent uses, and prints, per mode (lexical only, encoder only, fused): top-1,
// answered right / answered wrong at the threshold, no-answer questions correctly not answered, a threshold sweep;
// then latency p50/p99 per question on a base of 1,000 entries and the memory the encoder adds.
//   --fast (or KB_EVAL_FAST=1)  the fixture only, no 1,000-entry base (what CI runs, well under a minute)
//   --check                     exit 1 when the fused mode falls below FLOORS (CI: a regression guard; the issue's
//                               targets are printed beside the figures, not enforced, as they are not met yet)
//   --verbose                   list the misses of the fused mode
// The fixture was written apart from the tuning, as customers would ask.
import { readFile } from 'node:fs/promises';
import { ANSWER_THRESHOLD, LEXICAL_ANSWER_THRESHOLD } from '../src/agent/engines/knowledge-base-engine.ts';
import { openDatabase } from '../src/db/client.ts';
import { accounts } from '../src/db/schema.ts';
import { createSentenceEncoder } from '../src/knowledge/encoder/sentence-encoder.ts';
import { createEntryVectors } from '../src/knowledge/entry-vectors.ts';
import { createKnowledgeService } from '../src/knowledge/knowledge-service.ts';
import { createKnowledgeStore } from '../src/knowledge/knowledge-store.ts';
import { createRetriever, type RetrievalMode } from '../src/knowledge/retrieval.ts';
import { systemClock } from '../src/lib/clock.ts';
import { newId } from '../src/lib/ids.ts';

interface Fixture {
  language: string;
  entries: { question: string; synonyms: string[]; answer: string; paraphrases: string[] }[];
  offTopic: string[];
  noAnswer: string[];
}

const args = new Set(process.argv.slice(2));
const fast = args.has('--fast') || process.env.KB_EVAL_FAST === '1';
const verbose = args.has('--verbose');
const fixtureArg = process.argv.slice(2).find((arg) => arg.startsWith('--fixture='))?.slice('--fixture='.length);
const fixture = JSON.parse(await readFile(fixtureArg ?? new URL('./kb-fixture.json', import.meta.url), 'utf8')) as Fixture;
/** Issue 17's targets for the fused mode at the shipped threshold. */
const TARGETS = { top1: 0.75, answeredRight: 0.65, noAnswerSilent: 0.7 };
/** What the shipped engine measures today, a little lower: below these, a change made it worse (`--check`). */
const FLOORS = { top1: 0.62, answeredRight: 0.45, noAnswerSilent: 0.6 };

const pct = (n: number, of: number) => (of === 0 ? '-' : `${((100 * n) / of).toFixed(1)}%`);
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

const database = await openDatabase({ kind: 'pglite' });
const encoder = createSentenceEncoder();
let failed = false;
try {
  const accountId = newId();
  await database.db.insert(accounts).values({ id: accountId, email: 'eval@example.com', passwordHash: '-' });
  const store = createKnowledgeStore(database.db);
  const knowledge = createKnowledgeService({ store, clock: systemClock });
  const vectors = createEntryVectors({ store, encoder });

  const rssBeforeEncoder = process.memoryUsage().rss;
  await encoder.embed(['warm up']);
  const encoderRss = process.memoryUsage().rss - rssBeforeEncoder;

  async function loadBase(entries: { question: string; synonyms: string[]; answer: string }[]) {
    const base = await knowledge.createKnowledgeBase(accountId, { name: 'eval', language: fixture.language });
    const ids: string[] = [];
    for (const entry of entries) ids.push((await knowledge.addEntry(accountId, base.id, { ...entry, source: 'manual' })).id);
    // The `knowledge.embed` job's work, a few entries at a time as a busy server would.
    for (let at = 0; at < ids.length; at += 8) await Promise.all(ids.slice(at, at + 8).map((id) => vectors.embedEntry(base.id, id)));
    return { baseId: base.id, ids };
  }

  const fixtureBase = await loadBase(fixture.entries);
  const embed = async (text: string) => (await encoder.embed([text]))[0] ?? [];
  const paraphrases = fixture.entries.reduce((sum, entry) => sum + entry.paraphrases.length, 0);
  console.log(`knowledge-base engine, ${fixture.entries.length} entries; ${paraphrases} paraphrases, ${fixture.noAnswer.length} no-answer questions sharing words with entries, ${fixture.offTopic.length} off-topic`);

  for (const mode of ['lexical', 'encoder', 'fused'] as RetrievalMode[]) {
    const retriever = createRetriever({ store, embed, mode });
    const threshold = mode === 'lexical' ? LEXICAL_ANSWER_THRESHOLD : ANSWER_THRESHOLD;
    const outcomes: { score: number; right: boolean }[] = [];
    const unanswerable: { score: number; hard: boolean }[] = [];
    const misses: string[] = [];
    const ask = async (text: string) => {
      const [best] = await retriever.retrieve(fixtureBase.baseId, fixture.language, text, 1);
      return { best, score: best?.exact ? 1 : (best?.score ?? 0) };
    };
    for (const [index, entry] of fixture.entries.entries()) {
      for (const paraphrase of entry.paraphrases) {
        const { best, score } = await ask(paraphrase);
        const right = best?.id === fixtureBase.ids[index];
        outcomes.push({ score, right });
        if (!right || score < threshold) {
          misses.push(`${right ? 'below threshold' : 'wrong entry'} (${score}): "${paraphrase}" → ${best ? `"${best.question}"` : 'nothing'}; expected "${entry.question}"`);
        }
      }
    }
    for (const [hard, questions] of [[false, fixture.offTopic], [true, fixture.noAnswer]] as const) {
      for (const question of questions) {
        const { best, score } = await ask(question);
        unanswerable.push({ score, hard });
        if (score >= threshold) misses.push(`no-answer question answered (${score}): "${question}" → "${best?.question}"`);
      }
    }
    const at = (t: number) => ({
      right: outcomes.filter((o) => o.right && o.score >= t).length,
      wrong: outcomes.filter((o) => !o.right && o.score >= t).length,
      silentHard: unanswerable.filter((u) => u.hard && u.score < t).length,
      silentOff: unanswerable.filter((u) => !u.hard && u.score < t).length,
    });
    const shipped = at(threshold);
    const top1 = outcomes.filter((o) => o.right).length;
    const hard = fixture.noAnswer.length;
    const off = fixture.offTopic.length;
    console.log(`\nmode ${mode}, threshold ${threshold}`);
    console.log(`  top-1 (right entry ranked first):      ${top1}/${paraphrases} = ${pct(top1, paraphrases)}`);
    console.log(`  answered right at the threshold:       ${shipped.right}/${paraphrases} = ${pct(shipped.right, paraphrases)}`);
    console.log(`  answered wrong at the threshold:       ${shipped.wrong}/${paraphrases} = ${pct(shipped.wrong, paraphrases)}`);
    console.log(`  no-answer questions not answered:      ${shipped.silentHard}/${hard} = ${pct(shipped.silentHard, hard)}`);
    console.log(`  off-topic questions not answered:      ${shipped.silentOff}/${off} = ${pct(shipped.silentOff, off)}`);
    console.log('  sweep: threshold → answered right / answered wrong / no-answer silent / off-topic silent');
    for (let t = 0.2; t < 0.71; t += 0.05) {
      const r = at(t);
      console.log(`    ${t.toFixed(2)} → ${pct(r.right, paraphrases)} / ${pct(r.wrong, paraphrases)} / ${pct(r.silentHard, hard)} / ${pct(r.silentOff, off)}`);
    }
    if (verbose && mode === 'fused') for (const miss of misses) console.log(`  ${miss}`);
    if (mode === 'fused') {
      const figures = { top1: top1 / paraphrases, answeredRight: shipped.right / paraphrases, noAnswerSilent: shipped.silentHard / hard };
      const below = (bar: typeof TARGETS) => (Object.keys(bar) as (keyof typeof TARGETS)[]).filter((k) => figures[k] < bar[k]).map((k) => `${k} ${figures[k].toFixed(3)} < ${bar[k]}`);
      const missed = below(TARGETS);
      console.log(`  issue 17 targets (top-1 ≥ ${TARGETS.top1}, answered right ≥ ${TARGETS.answeredRight}, no-answer silent ≥ ${TARGETS.noAnswerSilent}): ${missed.length ? `missed: ${missed.join('; ')}` : 'met'}`);
      const regressed = below(FLOORS);
      if (regressed.length > 0) {
        console.log(`  BELOW THE REGRESSION FLOORS: ${regressed.join('; ')}`);
        failed = true;
      }
    }
  }

  console.log(`\nencoder: +${megabytes(encoderRss)} resident once loaded (process now ${megabytes(process.memoryUsage().rss)}, PGlite included)`);
  if (!fast) {
    // 1,000 entries: the fixture's and made-up ones built from its words, so the statistics stay English-like.
    const words = [...new Set(fixture.entries.flatMap((e) => `${e.question} ${e.answer}`.toLowerCase().match(/[a-z]+/g) ?? []))];
    let seed = 7;
    const pick = () => words[(seed = (seed * 48271) % 2147483647) % words.length] ?? 'order';
    const sentence = (n: number) => Array.from({ length: n }, pick).join(' ');
    const extra = Array.from({ length: 1000 - fixture.entries.length }, () => ({ question: `${sentence(7)}?`, synonyms: [], answer: `${sentence(25)}.` }));
    const started = performance.now();
    const large = await loadBase([...fixture.entries, ...extra]);
    console.log(`1,000-entry base loaded and embedded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    for (const mode of ['lexical', 'fused'] as RetrievalMode[]) {
      const retriever = createRetriever({ store, embed, mode });
      const latencies: number[] = [];
      const questions = [...fixture.entries.flatMap((e) => e.paraphrases), ...fixture.noAnswer];
      await retriever.retrieve(large.baseId, fixture.language, 'warm up', 1);
      for (const question of questions) {
        const t = performance.now();
        await retriever.retrieve(large.baseId, fixture.language, question, 1);
        latencies.push(performance.now() - t);
      }
      const p99 = quantile(latencies, 0.99);
      console.log(`latency, ${mode}, 1,000 entries, ${questions.length} questions: p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
    }
  }
  console.log(`resident memory at the end: ${megabytes(process.memoryUsage().rss)}`);
} finally {
  await encoder.close();
  await database.close();
}
if (failed && args.has('--check')) process.exit(1);
