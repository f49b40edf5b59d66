// `npm run eval:kb`: how well the knowledge-base engine finds the right entry for paraphrased questions, and
// how well it keeps quiet on questions it has no entry for. Two fixtures of two businesses (kb-fixture.json, an
// online clothing shop; kb-fixture-holdout.json, a phone and internet provider, written apart from the engine by
// someone who never saw it): entries with customer paraphrases, off-topic questions, and no-answer questions that
// share words with entries (the hard case). Each is loaded into an in-memory PGlite, the entries' sentence vectors
// computed as the server does, and every question asked through the same retrieval and threshold the agent uses;
// per fixture and mode (lexical only, encoder only, fused): top-1, answered right / answered wrong at the
// threshold, no-answer questions correctly not answered, a threshold sweep; then latency p50/p99 per question on a
// base of 1,000 entries and the memory the encoder adds. Then passage retrieval over documents (kb-documents-fixture.json:
// a shop's help centre in Markdown, HTML and plain text under documents/, and customer questions written apart from
// the engine, each with the sentence that answers it): the files parsed and split as the server does, the passages
// embedded as its job does, and per mode the share of questions whose answering passage is ranked first, among the
// 4 the model is given, and among the top 5 (recall@5, the issue's target ≥ 0.90).
//   --fast (or KB_EVAL_FAST=1)  the fixtures only, no 1,000-entry base (what CI runs, well under a minute)
//   --check                     exit 1 when the fused mode falls below FLOORS, or its cross-validated menu figures
//                               past CLARIFY_FLOORS (CI: a regression guard; the issues' targets are printed beside)
//   --verbose                   list the misses of the fused mode, and the clarifying bars' sweep
//   --fixture=PATH              that fixture only (and no documents)
//   --calibrate [--rules-only]  fit the fusion weights and the answer rules (retrieval.ts) on the fixtures and print
//                               them
// Three fixtures (the third, kb-fixture-bike.json, a bicycle repair shop, also written apart from the engine and
// before it was run on it). Beside each mode's figures, the fused mode's precision (right answers ÷ every entry
// answer given, over paraphrases, no-answer and off-topic questions together), answered right, answered wrong,
// silence and no-answer questions answered, for the shipped rule and cross-validated: the semantic rule's
// constants fitted on the other fixtures (fitSemanticRule) and measured on this one, the figure to trust.
// Then the multi-turn measure (issues 35 and 42): each question through the engine's decision as a customer meets it
// (answered directly, a clarification picked when it offers the right answer, else `0`, or the fallback): resolved,
// direct precision, the questions no entry answers offered a menu or answered directly, the right entry among a
// menu's options and the clarification rate, per fixture at the shipped bars and cross-validated (CLARIFY_BARS
// fitted on the other fixtures by fitClarifyBars), each fixture's ranking ceiling (the right answer first, among the
// first 3 — the most a menu can resolve — and how well the best candidate's relevance tells those questions from
// unanswered ones, ROC AUC), and the right passage offered on the documents fixture.
// Only global constants are fitted (4 fusion weights; the semantic rule's 4 coefficients and its strong agreement's 2
// margins; the lexical rule's 3 coefficients; the clarifying menu and option bars, 2 per rule), never anything about
// an item.
import { readFile } from 'node:fs/promises';
import type { DocumentKind } from '@parley/contracts';
import { optionsOf, passageReply } from '../src/agent/engines/clarify.ts';
import { ANSWER_THRESHOLD, CANDIDATES, LEXICAL_ANSWER_THRESHOLD, createKnowledgeBaseEngine, decide } from '../src/agent/engines/knowledge-base-engine.ts';
import type { AgentChannel } from '../src/agent/engine.ts';
import { DEFAULT_SETTINGS } from '../src/channels/channels-service.ts';
import { openDatabase } from '../src/db/client.ts';
import { EVAL_AUDIT, evalKnowledge } from './eval-knowledge.ts';
import type { PassageRow } from '../src/knowledge/documents/documents-store.ts';
import { claimedKind } from '../src/knowledge/documents/documents-service.ts';
import { passageEmbeddingText } from '../src/knowledge/documents/passage-vectors.ts';
import { headingLine } from '../src/knowledge/documents/passages.ts';
import { readDocument } from '../src/knowledge/documents/read-document.ts';
import { createSentenceEncoder } from '../src/knowledge/encoder/sentence-encoder.ts';
import { createEntryVectors } from '../src/knowledge/entry-vectors.ts';
import { buildIndex, type KnowledgeIndex } from '../src/knowledge/knowledge-index.ts';
import {
  ANSWER_RULES,
  CLARIFY_BARS,
  FUSION,
  createRetriever,
  rankEntries,
  ruleConfidence,
  ruleFeatures,
  STRONG_AGREEMENT,
  strongAgreement,
  topicMargins,
  type AnswerRule,
  type ClarifyBars,
  type RetrievedEntry,
  type RetrievedPassage,
  type StrongAgreement,
  type TopicMargins,
  type FusionWeights,
  type RetrievalMode,
} from '../src/knowledge/retrieval.ts';

interface Fixture {
  name: string;
  language: string;
  entries: { question: string; synonyms: string[]; answer: string; paraphrases: string[] }[];
  offTopic: string[];
  noAnswer: string[];
}

const args = new Set(process.argv.slice(2));
const fast = args.has('--fast') || process.env.KB_EVAL_FAST === '1';
const verbose = args.has('--verbose');
const fixtureArg = process.argv.slice(2).find((arg) => arg.startsWith('--fixture='))?.slice('--fixture='.length);
const fixturePaths = fixtureArg
  ? [fixtureArg]
  : ['kb-fixture.json', 'kb-fixture-holdout.json', 'kb-fixture-bike.json'].map((name) => new URL(`./${name}`, import.meta.url));
const fixtures: Fixture[] = [];
for (const path of fixturePaths) {
  const name = String(path).replace(/^.*\//, '').replace(/\.json$/, '');
  fixtures.push({ name, ...(JSON.parse(await readFile(path, 'utf8')) as Omit<Fixture, 'name'>) });
}
interface DocumentsFixture {
  name: string;
  language: string;
  /** Files under documents/. */
  documents: string[];
  /** A customer's question, the document that answers it, and words of the passage that does (as parsed). */
  questions: { question: string; document: string; answer: string }[];
}
/** Issue 27's target: the passage holding the answer among the 5 best. */
const DOCUMENTS_TARGET = { recallAt5: 0.9 };
/** What the shipped retrieval measures on the documents fixture, a little lower. */
const DOCUMENTS_FLOOR = { recallAt5: 0.88 };
/** Passages the openai-compatible engine gives the model (openai-engine.ts). */
const PASSAGES_GIVEN = 4;

/** Issue 17's targets for the fused mode at the shipped threshold. */
const TARGETS = { top1: 0.75, answeredRight: 0.65, noAnswerSilent: 0.7 };
/**
 * What fitSemanticRule asks of the fixtures it fits on: precision ≥ 0.95 over their answers together, and on each
 * the issue's precision (≥ 0.90) and at most 15 % of its no-answer questions answered. Stricter than the issue's bars
 * (a business the rule was not fitted on loses a few points), but the 0.95 is pooled: one fixture gives a rule
 * 10–30 answers, where a single wrong one moves precision by 3–10 points, so a per-fixture 0.95 was decided by one
 * question and threw away rules that carry over as well (docs/decisions.md, "Precision first").
 */
const FIT_BARS = { pooledPrecision: 0.95, precision: 0.9, noAnswerAnswered: 0.15 };
/** Issue 26's targets for the fused mode at the shipped threshold (precision over every entry answer given). */
const PRECISION_TARGETS = { precision: 0.9, noAnswerAnswered: 0.2, answeredRight: 0.45 };
/** What the shipped engine measures today on each fixture, a little lower: below these, a change made it worse. */
const FLOORS: Record<string, typeof TARGETS & { precision: number }> = {
  'kb-fixture': { top1: 0.66, answeredRight: 0.18, noAnswerSilent: 0.8, precision: 0.9 },
  'kb-fixture-holdout': { top1: 0.6, answeredRight: 0.09, noAnswerSilent: 0.8, precision: 0.9 },
  'kb-fixture-bike': { top1: 0.58, answeredRight: 0.17, noAnswerSilent: 0.8, precision: 0.9 },
};

/** Options offered per clarification in the multi-turn measure: the channels' default `clarifyChoices`. */
const CLARIFY_CHOICES = 3;
/** Issue 42's targets, per fixture, cross-validated (unanswered: the no-answer and off-topic questions together). */
const CLARIFY_TARGETS = { resolved: 0.8, directPrecision: 0.93, unansweredMenus: 0.3, unansweredDirect: 0.1, choiceRecall: 0.9 };
/**
 * What the cross-validated figures measure today, a little lower (a little higher for the shares of unanswered
 * questions): past these, a change made the engine worse.
 */
const CLARIFY_FLOORS: Record<string, typeof CLARIFY_TARGETS> = {
  'kb-fixture': { resolved: 0.58, directPrecision: 0.9, unansweredMenus: 0.3, unansweredDirect: 0.1, choiceRecall: 0.85 },
  'kb-fixture-holdout': { resolved: 0.43, directPrecision: 0.9, unansweredMenus: 0.35, unansweredDirect: 0.1, choiceRecall: 0.82 },
  'kb-fixture-bike': { resolved: 0.48, directPrecision: 0.9, unansweredMenus: 0.2, unansweredDirect: 0.1, choiceRecall: 0.82 },
};

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
  const { accountId, store, knowledge } = await evalKnowledge(database.db);
  const vectors = createEntryVectors({ store, encoder, embeddings: { embed: () => Promise.reject(new Error('no provider in the eval')) } });

  const rssBeforeEncoder = process.memoryUsage().rss;
  await encoder.embed(['warm up']);
  const encoderRss = process.memoryUsage().rss - rssBeforeEncoder;

  async function loadBase(language: string, entries: { question: string; synonyms: string[]; answer: string }[]) {
    const base = await knowledge.createKnowledgeBase(accountId, { name: 'eval', language }, EVAL_AUDIT);
    const ids: string[] = [];
    for (const entry of entries) ids.push((await knowledge.addEntry(accountId, base.id, { ...entry, source: 'manual' }, EVAL_AUDIT)).id);
    // The `knowledge.embed` job's work, a few entries at a time as a busy server would.
    for (let at = 0; at < ids.length; at += 8) await Promise.all(ids.slice(at, at + 8).map((id) => vectors.embedEntry(base.id, id)));
    return { baseId: base.id, ids };
  }
  const embed = async (text: string) => (await encoder.embed([text]))[0] ?? [];
  const embedded = new Map<string, Promise<number[]>>();
  /** The same text is embedded once (the multi-turn measure asks every question at each bar of its sweep). */
  const memoEmbed = (text: string) => {
    let vector = embedded.get(text);
    if (!vector) embedded.set(text, (vector = embed(text)));
    return vector;
  };

  /** A fixture's questions: paraphrases with the index of their entry, then the no-answer and off-topic ones. */
  const questionsOf = (fixture: Fixture) => [
    ...fixture.entries.flatMap((entry, index) => entry.paraphrases.map((text) => ({ text, kind: 'paraphrase' as const, entry: index }))),
    ...fixture.noAnswer.map((text) => ({ text, kind: 'no-answer' as const, entry: -1 })),
    ...fixture.offTopic.map((text) => ({ text, kind: 'off-topic' as const, entry: -1 })),
  ];

  const loaded: ({ fixture: Fixture } & Awaited<ReturnType<typeof loadBase>>)[] = [];
  type QuestionSet = { fixture: Fixture; index: KnowledgeIndex; questions: (ReturnType<typeof questionsOf>[number] & { vector: number[]; id: string | undefined })[] };
  let questionSetsCache: QuestionSet[] | undefined;
  for (const fixture of fixtures) loaded.push({ fixture, ...(await loadBase(fixture.language, fixture.entries)) });
  // Every question's vector at once, a batch at a time (the encoder is quicker so than one text at a time).
  const texts = [...new Set(fixtures.flatMap((fixture) => questionsOf(fixture).map((question) => question.text)))];
  for (let at = 0; at < texts.length; at += 64) {
    const batch = texts.slice(at, at + 64);
    const vectors = encoder.embed(batch);
    batch.forEach((text, i) => embedded.set(text, vectors.then((all) => all[i] ?? [])));
    await vectors;
  }

  if (args.has('--calibrate')) {
    await calibrate();
  } else {
    for (const { fixture, baseId, ids } of loaded) await evaluate(fixture, baseId, ids);
    if (loaded.length > 1) crossValidate(await ruleSamples(true));
    await evaluateClarifying();
    if (!fixtureArg) await evaluateDocuments();
  }

  /**
   * The multi-turn measure (issue 35, issue 42), through the knowledge-base engine's own decision (`decide`): each
   * question is looked up once as the engine does; for a set of clarifying bars, the engine answers it directly,
   * clarifies with at most CLARIFY_CHOICES options, or falls back, and a simulated customer picks the option whose
   * answer is the right one when it is offered, else `0` (always `0` for a question no entry answers).
   */
  async function askedQuestions(fixture: Fixture, baseId: string, mode: RetrievalMode): Promise<AskedQuestion[]> {
    const retriever = createRetriever({ store, embed: memoEmbed, mode });
    const asked: AskedQuestion[] = [];
    for (const question of questionsOf(fixture)) {
      const { entries, passages } = await retriever.retrieveWithPassages(baseId, question.text, { entries: CANDIDATES, passages: CANDIDATES });
      asked.push({ text: question.text, kind: question.kind, right: question.kind === 'paraphrase' ? fixture.entries[question.entry]?.answer.trim() : undefined, entries, passages });
    }
    return asked;
  }

  /** What the engine does with each question at these bars (undefined: the shipped ones), and the customer's pick. */
  function outcomesAt(questions: readonly AskedQuestion[], bars: ClarifyBars | undefined): ClarifyOutcome[] {
    return questions.map((question) => {
      const found = decide(question.entries, question.passages, { threshold: undefined, asking: true, bars });
      const outcome: ClarifyOutcome = { kind: question.kind, direct: null, clarified: false, offered: false };
      if (found.answer !== undefined) outcome.direct = question.right !== undefined && found.answer.trim() === question.right ? 'right' : 'wrong';
      const options = optionsOf(found.candidates, CLARIFY_CHOICES);
      if (options.length > 0) {
        outcome.clarified = true;
        outcome.offered = options.some((option) => question.right !== undefined && option.reply.trim() === question.right);
      }
      return outcome;
    });
  }

  /**
   * The shipped bars through the engine itself, pick included, to check that `outcomesAt` is what the engine does: a
   * customer who gets a clarification picks the right option's number (else 0), and the engine is asked again.
   */
  async function engineOutcomes(fixture: Fixture, baseId: string, mode: RetrievalMode): Promise<ClarifyOutcome[]> {
    const engine = createKnowledgeBaseEngine({ retriever: createRetriever({ store, embed: memoEmbed, mode }), baseLanguage: () => Promise.resolve(fixture.language) });
    const channel: AgentChannel = {
      settings: { ...DEFAULT_SETTINGS, aiLang: fixture.language },
      knowledgeBaseId: baseId,
      engine: { kind: 'knowledge-base' },
      apiKey: null,
      handoffAfterFallbacks: 0,
      clarifyChoices: CLARIFY_CHOICES,
      clarifyPrompt: null,
    };
    const outcomes: ClarifyOutcome[] = [];
    for (const question of questionsOf(fixture)) {
      const right = question.kind === 'paraphrase' ? fixture.entries[question.entry]?.answer.trim() : undefined;
      const asked = { role: 'user' as const, text: question.text, attachments: [] };
      const first = await engine.answer({ accountId, channel, history: [], pending: [asked], firstMessage: false });
      const outcome: ClarifyOutcome = { kind: question.kind, direct: null, clarified: false, offered: false };
      if (first.choices) {
        outcome.clarified = true;
        const n = first.choices.options.findIndex((option) => right !== undefined && option.reply.trim() === right) + 1;
        const history = [asked, { role: 'assistant' as const, text: first.text ?? '', attachments: [], agentReply: 'clarified' as const, choices: first.choices }];
        const second = await engine.answer({ accountId, channel, history, pending: [{ role: 'user', text: String(n), attachments: [] }], firstMessage: false });
        outcome.offered = right !== undefined && second.text?.trim() === right && second.picked !== undefined;
      } else if (first.text !== null && !first.fallback && !first.handoff) {
        outcome.direct = right !== undefined && first.text.trim() === right ? 'right' : 'wrong';
      }
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /**
   * The five figures of issue 42 per fixture: at the shipped bars, and cross-validated (the bars fitted on the other
   * fixtures, measured on this one), with the sweep the bars are fitted from; for the fused mode (the English engine)
   * and by words alone.
   */
  async function evaluateClarifying() {
    for (const mode of ['fused', 'lexical'] as const) {
      const shippedBars = mode === 'fused' ? CLARIFY_BARS.semantic : CLARIFY_BARS.lexical;
      const grid = barGrid(mode);
      const swept: { fixture: Fixture; shipped: ClarifyFigures; byBars: ClarifyFigures[]; ceiling: Ceiling }[] = [];
      for (const { fixture, baseId } of loaded) {
        const questions = await askedQuestions(fixture, baseId, mode);
        const ceiling = ceilingOf(questions);
        const shipped = clarifyFigures(outcomesAt(questions, undefined));
        const byEngine = clarifyFigures(await engineOutcomes(fixture, baseId, mode));
        if (JSON.stringify(byEngine) !== JSON.stringify(shipped)) throw new Error(`${fixture.name}: the engine (${JSON.stringify(byEngine)}) is not what decide() gives (${JSON.stringify(shipped)})`);
        swept.push({ fixture, shipped, byBars: grid.map((bars) => clarifyFigures(outcomesAt(questions, bars))), ceiling });
      }
      console.log(`
== menus only when they help (issues 35, 42), ${mode === 'fused' ? 'fused mode (with the encoder)' : 'words alone'}, ${CLARIFY_CHOICES} options, a customer who picks the right option when offered, else 0`);
      console.log('   fixture               bars (menu/option)     resolved  direct right  after a pick  direct precision  unansw. menu  unansw. direct  choice recall  clarification rate');
      const row = (name: string, label: string, f: ClarifyFigures) =>
        console.log(
          `   ${name.padEnd(21)} ${label.padEnd(22)} ${f.resolved.toFixed(3).padEnd(9)} ${f.directRight.toFixed(3).padEnd(13)} ${f.afterPick.toFixed(3).padEnd(13)} ${f.directPrecision.toFixed(3).padEnd(17)} ${f.unansweredMenus.toFixed(3).padEnd(13)} ${f.unansweredDirect.toFixed(3).padEnd(15)} ${f.choiceRecall.toFixed(3).padEnd(14)} ${f.clarificationRate.toFixed(3)}`,
        );
      const label = (bars: ClarifyBars) => `${bars.menu}/${bars.option}`;
      for (const { fixture, shipped, byBars, ceiling } of swept) {
        row(fixture.name, `shipped ${label(shippedBars)}`, shipped);
        console.log(
          `     ranking: right answer first ${ceiling.first.toFixed(3)}, among the first ${CLARIFY_CHOICES} (resolved's ceiling) ${ceiling.withinChoices.toFixed(3)}; best candidate's relevance, ROC AUC of those against the unanswered ${ceiling.separability.toFixed(3)}`,
        );
        const others = swept.filter((other) => other.fixture !== fixture);
        if (others.length === 0) continue;
        const at = fitClarifyBars(grid, others.map((other) => other.byBars));
        const carried = byBars[at] as ClarifyFigures;
        row(fixture.name, `cross-val. ${label(grid[at] as ClarifyBars)}`, carried);
        const missed = targetsMissed(carried);
        console.log(`     issue 42 targets (cross-validated): ${missed.length ? `missed: ${missed.join('; ')}` : 'met'}`);
        const floor = mode === 'fused' ? CLARIFY_FLOORS[fixture.name] : undefined;
        const regressed = floor ? targetsMissed(carried, floor) : [];
        if (regressed.length > 0) {
          console.log(`     BELOW THE REGRESSION FLOORS: ${regressed.join('; ')}`);
          failed = true;
        }
      }
      const fitted = grid[fitClarifyBars(grid, swept.map((s) => s.byBars))] as ClarifyBars;
      const same = fitted.menu === shippedBars.menu && fitted.option === shippedBars.option;
      console.log(`   the bars fitted on every fixture: ${label(fitted)} (shipped: ${label(shippedBars)}, CLARIFY_BARS.${mode === 'fused' ? 'semantic' : 'lexical'} in retrieval.ts${same ? '' : ': NOT THE SAME'})`);
      if (verbose) {
        console.log('   sweep: each menu bar with the option bar the fit prefers for it');
        for (const menu of [...new Set(grid.map((bars) => bars.menu))]) {
          const at = fitClarifyBars(grid.filter((bars) => bars.menu === menu), swept.map((s) => s.byBars.filter((_, i) => grid[i]?.menu === menu)));
          const bars = grid.filter((b) => b.menu === menu)[at] as ClarifyBars;
          const index = grid.indexOf(bars);
          for (const s of swept) row(s.fixture.name, `sweep ${label(bars)}`, s.byBars[index] as ClarifyFigures);
        }
      }
    }
  }

  /** Passage retrieval over the documents fixture (see the header). */
  async function evaluateDocuments() {
    const fixture = JSON.parse(await readFile(new URL('./kb-documents-fixture.json', import.meta.url), 'utf8')) as DocumentsFixture;
    const rows: PassageRow[] = [];
    for (const name of fixture.documents) {
      const kind = claimedKind(name, undefined)?.kind as DocumentKind;
      const passages = await readDocument(await readFile(new URL(`./documents/${name}`, import.meta.url)), kind);
      // The `knowledge.embedDocument` job's texts: each passage's heading line, and its text with its headings.
      const texts = passages.flatMap((passage) => [headingLine({ document: name, headingPath: passage.headingPath }), passageEmbeddingText(passage)]);
      const vectors = await encoder.embed(texts);
      passages.forEach((passage, i) =>
        rows.push({ id: `${name}#${i}`, documentName: name, ...passage, headingVector: vectors[2 * i] ?? null, textVector: vectors[2 * i + 1] ?? null, vectorsModel: encoder.model }),
      );
    }
    const targets = fixture.questions.map((question) => {
      const holding = rows.filter((row) => row.documentName === question.document && row.text.replace(/\s+/g, ' ').includes(question.answer));
      if (holding.length !== 1) throw new Error(`"${question.answer}" is in ${holding.length} passages of ${question.document}, not one`);
      return holding[0] as PassageRow;
    });
    console.log(
      `\n== ${fixture.name}: ${fixture.documents.length} documents split into ${rows.length} passages; ${fixture.questions.length} questions whose answer is in one passage`,
    );
    console.log(`   mode      recall@1   recall@${PASSAGES_GIVEN} (given)   recall@5   MRR@5   a menu     right passage offered (the knowledge-base engine's choices, ${CLARIFY_CHOICES} options)`);
    for (const mode of ['lexical', 'encoder', 'fused'] as RetrievalMode[]) {
      const retriever = createRetriever({
        store: { findBaseVersion: () => Promise.resolve({ language: fixture.language, entriesVersion: 1, embeddings: null }), loadIndexRows: () => Promise.resolve([]) },
        loadPassages: () => Promise.resolve(rows),
        embed,
        mode,
      });
      const ranks: number[] = [];
      const misses: string[] = [];
      let menus = 0;
      let offered = 0;
      for (const [i, question] of fixture.questions.entries()) {
        const { passages } = await retriever.retrieveWithPassages('documents', question.question, { entries: 0, passages: CANDIDATES });
        const rank = passages.findIndex((passage) => passage.id === targets[i]?.id) + 1;
        // The knowledge-base engine offers passages as choices only: is the right one offered at the shipped bars?
        const options = optionsOf(decide([], passages, { threshold: undefined, asking: true }).candidates, CLARIFY_CHOICES);
        const right = passages.find((passage) => passage.id === targets[i]?.id);
        if (options.length > 0) menus += 1;
        if (right && options.some((option) => option.reply === passageReply(right))) offered += 1;
        ranks.push(rank);
        if (rank !== 1) misses.push(`rank ${rank || '>5'}: "${question.question}" → ${passages[0] ? `"${headingLine(passages[0])}"` : 'nothing'}; expected "${headingLine({ document: question.document, headingPath: targets[i]?.headingPath ?? [] })}"`);
      }
      const within = (k: number) => ranks.filter((rank) => rank > 0 && rank <= k).length / ranks.length;
      const mrr = ranks.reduce((sum, rank) => sum + (rank > 0 ? 1 / rank : 0), 0) / ranks.length;
      console.log(`   ${mode.padEnd(8)}  ${within(1).toFixed(3)}      ${within(PASSAGES_GIVEN).toFixed(3)}              ${within(5).toFixed(3)}      ${mrr.toFixed(3)}   ${(menus / ranks.length).toFixed(3)}      ${(offered / ranks.length).toFixed(3)}`);
      if (verbose && mode === 'fused') for (const miss of misses) console.log(`     ${miss}`);
      if (mode === 'fused') {
        console.log(`   issue 27 target (fused recall@5 ≥ ${DOCUMENTS_TARGET.recallAt5}): ${within(5) >= DOCUMENTS_TARGET.recallAt5 ? 'met' : 'missed'}`);
        if (within(5) < DOCUMENTS_FLOOR.recallAt5) {
          console.log(`   BELOW THE REGRESSION FLOOR: recall@5 ${within(5).toFixed(3)} < ${DOCUMENTS_FLOOR.recallAt5}`);
          failed = true;
        }
      }
    }
  }

  async function evaluate(fixture: Fixture, baseId: string, ids: string[]) {
    const paraphrases = fixture.entries.reduce((sum, entry) => sum + entry.paraphrases.length, 0);
    console.log(`\n== ${fixture.name}: ${fixture.entries.length} entries; ${paraphrases} paraphrases, ${fixture.noAnswer.length} no-answer questions sharing words with entries, ${fixture.offTopic.length} off-topic`);
    for (const mode of ['lexical', 'encoder', 'fused'] as RetrievalMode[]) {
      const retriever = createRetriever({ store, embed: memoEmbed, mode });
      const threshold = mode === 'lexical' ? LEXICAL_ANSWER_THRESHOLD : ANSWER_THRESHOLD;
      const outcomes: { score: number; right: boolean }[] = [];
      const unanswerable: { score: number; hard: boolean }[] = [];
      const misses: string[] = [];
      for (const question of questionsOf(fixture)) {
        const [best] = await retriever.retrieve(baseId, fixture.language, question.text, 1);
        const score = best?.exact ? 1 : (best?.score ?? 0);
        if (question.kind === 'paraphrase') {
          const right = best?.id === ids[question.entry];
          outcomes.push({ score, right });
          if (!right || score < threshold) {
            const expected = fixture.entries[question.entry]?.question;
            misses.push(`${right ? 'below threshold' : 'wrong entry'} (${score}): "${question.text}" → ${best ? `"${best.question}"` : 'nothing'}; expected "${expected}"`);
          }
        } else {
          unanswerable.push({ score, hard: question.kind === 'no-answer' });
          if (score >= threshold) misses.push(`no-answer question answered (${score}): "${question.text}" → "${best?.question}"`);
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
      const given = shipped.right + shipped.wrong + (hard - shipped.silentHard) + (off - shipped.silentOff);
      console.log(`  precision (right ÷ entry answers given): ${shipped.right}/${given} = ${pct(shipped.right, given)}`);
      console.log('  sweep: threshold → answered right / answered wrong / no-answer silent / off-topic silent');
      for (let t = 0.2; t < 0.81; t += 0.05) {
        const r = at(t);
        console.log(`    ${t.toFixed(2)} → ${pct(r.right, paraphrases)} / ${pct(r.wrong, paraphrases)} / ${pct(r.silentHard, hard)} / ${pct(r.silentOff, off)}`);
      }
      if (verbose && mode === 'fused') for (const miss of misses) console.log(`  ${miss}`);
      if (mode === 'fused') {
        const figures = { top1: top1 / paraphrases, answeredRight: shipped.right / paraphrases, noAnswerSilent: shipped.silentHard / hard, precision: given ? shipped.right / given : 1 };
        const below = (bar: Partial<typeof figures>) =>
          (Object.keys(bar) as (keyof typeof figures)[]).filter((k) => figures[k] < (bar[k] ?? 0)).map((k) => `${k} ${figures[k].toFixed(3)} < ${bar[k]}`);
        const missed = below(TARGETS);
        console.log(`  issue 17 targets (top-1 ≥ ${TARGETS.top1}, answered right ≥ ${TARGETS.answeredRight}, no-answer silent ≥ ${TARGETS.noAnswerSilent}): ${missed.length ? `missed: ${missed.join('; ')}` : 'met'}`);
        const floors = FLOORS[fixture.name];
        const regressed = floors ? below(floors) : [];
        if (regressed.length > 0) {
          console.log(`  BELOW THE REGRESSION FLOORS: ${regressed.join('; ')}`);
          failed = true;
        }
      }
    }
  }

  /** Each fixture's index (as the retriever builds it) and questions with their vectors, computed once. */
  async function questionSets() {
    if (questionSetsCache) return questionSetsCache;
    const sets: QuestionSet[] = (questionSetsCache = []);
    for (const { fixture, baseId, ids } of loaded) {
      const index: KnowledgeIndex = buildIndex(fixture.language, await store.loadIndexRows(baseId));
      const questions = [];
      for (const question of questionsOf(fixture)) questions.push({ ...question, vector: await memoEmbed(question.text), id: ids[question.entry] });
      sets.push({ fixture, index, questions });
    }
    return sets;
  }

  /** Per fixture, each question's entry ranked first: its rule features, and whether it is the right one. */
  async function ruleSamples(semantic: boolean): Promise<Sample[][]> {
    return (await questionSets()).map((set) =>
      set.questions.map((q) => {
        const ranking = rankEntries(set.index, q.text, semantic ? q.vector : undefined, semantic ? 'fused' : 'lexical');
        const best = ranking.ranked[0];
        return {
          features: best ? ruleFeatures(best, ranking, semantic) : [],
          right: q.kind === 'paraphrase' && best?.entry.id === q.id,
          kind: q.kind,
          ...(best && semantic ? { margins: topicMargins(best, ranking) } : {}),
        };
      }),
    );
  }

  /**
   * The shipped semantic rule on each fixture, and the one fitted on the other fixtures alone (leave one fixture
   * out): how the rule does on a business it was not fitted on.
   */
  function crossValidate(samples: Sample[][]) {
    console.log('\n== precision first (issue 26), fused mode, semantic rule at 0.5: shipped (fitted on every fixture) and cross-validated (fitted on the others)');
    console.log('   fixture               rule              precision  answered right  answered wrong  silence  no-answer answered  off-topic answered');
    const row = (name: string, label: string, f: RuleFigures) =>
      console.log(
        `   ${name.padEnd(21)} ${label.padEnd(17)} ${f.precision.toFixed(3).padEnd(10)} ${f.right.toFixed(3).padEnd(15)} ${f.wrong.toFixed(3).padEnd(15)} ${f.silence.toFixed(3).padEnd(8)} ${f.noAnswerAnswered.toFixed(3).padEnd(19)} ${f.offTopicAnswered.toFixed(3)}`,
      );
    samples.forEach((set, i) => {
      const name = fixtures[i]?.name ?? '';
      row(name, 'shipped', ruleFigures(set, ANSWER_RULES.semantic));
      const others = samples.filter((_, j) => j !== i);
      const carried = fitSemanticRule(others);
      const f = ruleFigures(withAgreement(set, carried.agreement), carried.rule);
      row(name, 'cross-validated', f);
      const missed = [
        f.precision < PRECISION_TARGETS.precision ? `precision ${f.precision.toFixed(3)} < ${PRECISION_TARGETS.precision}` : '',
        f.noAnswerAnswered > PRECISION_TARGETS.noAnswerAnswered ? `no-answer answered ${f.noAnswerAnswered.toFixed(3)} > ${PRECISION_TARGETS.noAnswerAnswered}` : '',
        f.right < PRECISION_TARGETS.answeredRight ? `answered right ${f.right.toFixed(3)} < ${PRECISION_TARGETS.answeredRight}` : '',
      ].filter(Boolean);
      console.log(`     cross-validated rule ${JSON.stringify(carried)}; issue 26 targets: ${missed.length ? `missed: ${missed.join('; ')}` : 'met'}`);
    });
  }

  /**
   * Fits FUSION (a grid over the four weights, the best summed mean reciprocal rank of the right entry over the
   * fixtures) and ANSWER_RULES: the semantic rule with its strong agreement (fitSemanticRule), printed with the
   * cross-validated table and each fixture's ceiling (the rule fitted on that fixture alone to the issue's bars);
   * the lexical rule (a logistic regression of "the entry ranked first is right" over ruleFeatures, its intercept
   * then moved so that 0.5 is the lowest confidence that leaves ≥ 70 % of each fixture's no-answer questions and
   * ≥ 90 % of its off-topic ones unanswered), with each fixture's answered-right rate with the rule fitted on the
   * other fixtures alone (how the rule carries over to a business it has not seen).
   */
  async function calibrate() {
    const sets = await questionSets();
    /** Top-1 and mean reciprocal rank of the right entry over a fixture's paraphrases. */
    const quality = (set: (typeof sets)[number], weights: FusionWeights) => {
      const asked = set.questions.filter((q) => q.kind === 'paraphrase');
      let top1 = 0;
      let reciprocal = 0;
      for (const q of asked) {
        const rank = rankEntries(set.index, q.text, q.vector, 'fused', weights).ranked.findIndex((s) => s.entry.id === q.id) + 1;
        if (rank === 1) top1 += 1;
        if (rank > 0) reciprocal += 1 / rank;
      }
      return { top1: top1 / asked.length, mrr: reciprocal / asked.length };
    };
    const grid = args.has('--rules-only') ? [] : [0.25, 0.5, 0.75, 1, 1.5, 2];
    const tried: { weights: FusionWeights; figures: { top1: number; mrr: number }[] }[] = [];
    for (const lexical of grid) for (const question of grid) for (const answer of [0, ...grid]) for (const whole of [0, ...grid]) {
      const weights = { lexical, question, answer, whole };
      tried.push({ weights, figures: sets.map((set) => quality(set, weights)) });
    }
    // Mean reciprocal rank, not top-1, picks: top-1 moves by whole questions, and its optimum is a flat plateau.
    const sum = (figures: { mrr: number }[]) => figures.reduce((total, f) => total + f.mrr, 0);
    tried.sort((a, b) => sum(b.figures) - sum(a.figures));
    const show = (figures: { top1: number; mrr: number }[]) => figures.map((f) => `top-1 ${f.top1.toFixed(3)} MRR ${f.mrr.toFixed(3)}`).join(' / ');
    console.log('\nfusion weights, best summed mean reciprocal rank of the fixtures first:');
    for (const { weights, figures } of tried.slice(0, 8)) console.log(`  ${JSON.stringify(weights)} → ${show(figures)}`);
    console.log(`  shipped ${JSON.stringify(FUSION)} → ${show(sets.map((set) => quality(set, FUSION)))}`);

    const samples = await ruleSamples(true);
    const semanticRule = fitSemanticRule(samples);
    console.log(`\nsemantic answer rule (fitted on every fixture): ${JSON.stringify(semanticRule)}`);
    crossValidate(samples);
    // The ceiling of this rule on each fixture: fitted on that fixture alone to the issue's bars, in-sample, so no
    // rule of fitSemanticRule's grid (margin, kinds, unknown share, strong agreement) does better there, however fitted.
    const issueBars = { pooledPrecision: PRECISION_TARGETS.precision, precision: PRECISION_TARGETS.precision, noAnswerAnswered: PRECISION_TARGETS.noAnswerAnswered };
    console.log(`\nceiling: the semantic rule fitted on each fixture alone to precision ≥ ${PRECISION_TARGETS.precision}, no-answer answered ≤ ${PRECISION_TARGETS.noAnswerAnswered} (in-sample)`);
    samples.forEach((set, i) => {
      const fitted = fitSemanticRule([set], issueBars);
      const f = ruleFigures(withAgreement(set, fitted.agreement), fitted.rule);
      console.log(`  ${fixtures[i]?.name}: answered right ${f.right.toFixed(3)}, precision ${f.precision.toFixed(3)}, no-answer answered ${f.noAnswerAnswered.toFixed(3)} ${JSON.stringify(fitted)}`);
    });
    {
      const semantic = false;
      const samples = await ruleSamples(false);
      const fitted = fitRule(samples.flat());
      const rule = shiftToSilence(fitted, samples);
      console.log(`\n${semantic ? 'semantic' : 'lexical'} answer rule: ${JSON.stringify(rule)}`);
      samples.forEach((fixtureSamples, i) => {
        const other = samples.filter((_, j) => j !== i);
        const carried = other.length ? shiftToSilence(fitRule(other.flat()), other) : undefined;
        const figures = (r: AnswerRule) => {
          const paraphrases = fixtureSamples.filter((s) => s.kind === 'paraphrase');
          const hard = fixtureSamples.filter((s) => s.kind === 'no-answer');
          const right = paraphrases.filter((s) => s.right && ruleConfidence(r, s.features) >= 0.5).length / paraphrases.length;
          const silent = hard.filter((s) => ruleConfidence(r, s.features) < 0.5).length / hard.length;
          return `answered right ${right.toFixed(3)}, no-answer silent ${silent.toFixed(3)}`;
        };
        const shipped = semantic ? ANSWER_RULES.semantic : ANSWER_RULES.lexical;
        console.log(`  ${sets[i]?.fixture.name}: fitted ${figures(rule)}; shipped ${figures(shipped)}${carried ? `; fitted on the other fixture only ${figures(carried)}` : ''}`);
      });
    }
  }

  if (!fast && !args.has('--calibrate')) {
    const fixture = fixtures[0];
    if (!fixture) throw new Error('no fixture');
    console.log(`\nencoder: +${megabytes(encoderRss)} resident once loaded (process now ${megabytes(process.memoryUsage().rss)}, PGlite included)`);
    // 1,000 entries: the fixture's and made-up ones built from its words, so the statistics stay English-like.
    const words = [...new Set(fixture.entries.flatMap((e) => `${e.question} ${e.answer}`.toLowerCase().match(/[a-z]+/g) ?? []))];
    let seed = 7;
    const pick = () => words[(seed = (seed * 48271) % 2147483647) % words.length] ?? 'order';
    const sentence = (n: number) => Array.from({ length: n }, pick).join(' ');
    const extra = Array.from({ length: 1000 - fixture.entries.length }, () => ({ question: `${sentence(7)}?`, synonyms: [], answer: `${sentence(25)}.` }));
    const started = performance.now();
    const large = await loadBase(fixture.language, [...fixture.entries, ...extra]);
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

/** A question as the engine's lookup found it (`askedQuestions`): what `decide` needs, and the right answer. */
interface AskedQuestion {
  text: string;
  kind: 'paraphrase' | 'no-answer' | 'off-topic';
  /** The answer of the question's entry (paraphrases only). */
  right: string | undefined;
  entries: RetrievedEntry[];
  passages: RetrievedPassage[];
}

interface ClarifyOutcome {
  kind: 'paraphrase' | 'no-answer' | 'off-topic';
  /** Answered directly: with the right answer or a wrong one; null when not answered directly. */
  direct: 'right' | 'wrong' | null;
  clarified: boolean;
  /** The right answer was among the options (so the customer's pick gets it). */
  offered: boolean;
}

interface ClarifyFigures {
  /** Paraphrases answered right, directly or after a pick. */
  resolved: number;
  directRight: number;
  afterPick: number;
  /** Right direct answers ÷ every direct answer (paraphrases, no-answer and off-topic questions). */
  directPrecision: number;
  /** Questions no entry answers (no-answer and off-topic) offered a menu. */
  unansweredMenus: number;
  /** Questions no entry answers answered directly. */
  unansweredDirect: number;
  /** Of the paraphrases clarified, those whose right answer was offered. */
  choiceRecall: number;
  /** Questions (all kinds) that got a clarification. */
  clarificationRate: number;
}

function clarifyFigures(outcomes: readonly ClarifyOutcome[]): ClarifyFigures {
  const paraphrases = outcomes.filter((o) => o.kind === 'paraphrase');
  const unanswered = outcomes.filter((o) => o.kind !== 'paraphrase');
  const direct = outcomes.filter((o) => o.direct !== null);
  const directRight = paraphrases.filter((o) => o.direct === 'right').length;
  const afterPick = paraphrases.filter((o) => o.clarified && o.offered).length;
  const clarifiedParaphrases = paraphrases.filter((o) => o.clarified);
  const share = (n: number, of: number) => (of === 0 ? 0 : n / of);
  return {
    resolved: share(directRight + afterPick, paraphrases.length),
    directRight: share(directRight, paraphrases.length),
    afterPick: share(afterPick, paraphrases.length),
    directPrecision: direct.length === 0 ? 1 : directRight / direct.length,
    unansweredMenus: share(unanswered.filter((o) => o.clarified).length, unanswered.length),
    unansweredDirect: share(unanswered.filter((o) => o.direct !== null).length, unanswered.length),
    choiceRecall: share(clarifiedParaphrases.filter((o) => o.offered).length, clarifiedParaphrases.length),
    clarificationRate: share(outcomes.filter((o) => o.clarified).length, outcomes.length),
  };
}

function targetsMissed(f: ClarifyFigures, bars: typeof CLARIFY_TARGETS = CLARIFY_TARGETS): string[] {
  return [
    f.resolved < bars.resolved ? `resolved ${f.resolved.toFixed(3)} < ${bars.resolved}` : '',
    f.directPrecision < bars.directPrecision ? `direct precision ${f.directPrecision.toFixed(3)} < ${bars.directPrecision}` : '',
    f.unansweredMenus > bars.unansweredMenus ? `unanswered offered a menu ${f.unansweredMenus.toFixed(3)} > ${bars.unansweredMenus}` : '',
    f.unansweredDirect > bars.unansweredDirect ? `unanswered answered directly ${f.unansweredDirect.toFixed(3)} > ${bars.unansweredDirect}` : '',
    f.choiceRecall < bars.choiceRecall ? `choice recall ${f.choiceRecall.toFixed(3)} < ${bars.choiceRecall}` : '',
  ].filter(Boolean);
}

/** What the ranking allows whatever the bars (issue 42's diagnosis): how often the right answer is offerable, and how well relevance tells those questions from unanswered ones. */
interface Ceiling {
  /** Paraphrases whose right answer is the first candidate's. */
  first: number;
  /** Paraphrases whose right answer is among the first CLARIFY_CHOICES distinct answers (the most a menu can resolve). */
  withinChoices: number;
  /** ROC AUC of the best candidate's relevance: those paraphrases (positive) against the questions no entry answers. */
  separability: number;
}

function ceilingOf(questions: readonly AskedQuestion[]): Ceiling {
  const rankOf = (question: AskedQuestion) => {
    const answers = [...new Set(question.entries.map((entry) => entry.answer.trim()))];
    return question.right === undefined ? 0 : answers.indexOf(question.right) + 1;
  };
  const paraphrases = questions.filter((question) => question.kind === 'paraphrase');
  const offerable = paraphrases.filter((question) => rankOf(question) > 0 && rankOf(question) <= CLARIFY_CHOICES);
  const best = (question: AskedQuestion) => question.entries[0]?.relevance ?? -Infinity;
  const positives = offerable.map(best);
  const negatives = questions.filter((question) => question.kind !== 'paraphrase').map(best);
  let wins = 0;
  for (const positive of positives) for (const negative of negatives) wins += positive > negative ? 1 : positive === negative ? 0.5 : 0;
  const share = (n: number, of: number) => (of === 0 ? 0 : n / of);
  return {
    first: share(paraphrases.filter((question) => rankOf(question) === 1).length, paraphrases.length),
    withinChoices: share(offerable.length, paraphrases.length),
    separability: share(wins, positives.length * negatives.length),
  };
}

/** The bars swept: a menu bar, and an option bar at or under it (relevance is on another scale by words alone). */
function barGrid(mode: 'fused' | 'lexical'): ClarifyBars[] {
  const [low, high] = mode === 'fused' ? [2, 16] : [-2, 6];
  const grid: ClarifyBars[] = [];
  for (let menu = low; menu <= high + 1e-9; menu += 0.25) {
    for (let option = low - 2; option < menu - 1e-9; option += 0.5) grid.push({ menu, option });
    grid.push({ menu, option: menu });
  }
  return grid;
}

/**
 * The bars (their index in the grid) fitted on some fixtures, honesty first as the answer rule is: on each fixture at
 * most CLARIFY_TARGETS.unansweredMenus of the questions no entry answers get a menu (the contract: such a question gets
 * the fallback, not a menu of unrelated entries), and of those bars the ones resolving the most paraphrases (summed
 * over the fixtures); on a tie the fewest menus (the higher menu bar), then the fewest options (the higher option
 * bar). When no bars keep every fixture under the share, the least summed excess. The direct figures are the answer
 * rule's, which the bars do not move; choice recall is what it comes to (fitted on too, no bars reach 0.90 on every
 * fixture without resolving under half of the paraphrases: docs/decisions.md, "Menus only when they help").
 */
function fitClarifyBars(grid: readonly ClarifyBars[], fixtures: readonly (readonly ClarifyFigures[])[]): number {
  const score = (i: number) => ({
    excess: fixtures.reduce((sum, byBars) => sum + Math.max(0, (byBars[i] as ClarifyFigures).unansweredMenus - CLARIFY_TARGETS.unansweredMenus), 0),
    resolved: fixtures.reduce((sum, byBars) => sum + (byBars[i] as ClarifyFigures).resolved, 0),
  });
  let best = 0;
  let bestScore = score(0);
  grid.forEach((bars, i) => {
    const current = score(i);
    const chosen = grid[best] as ClarifyBars;
    const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9;
    const better =
      current.excess < bestScore.excess - 1e-9 ||
      (same(current.excess, bestScore.excess) &&
        (current.resolved > bestScore.resolved + 1e-9 ||
          (same(current.resolved, bestScore.resolved) && (bars.menu > chosen.menu || (bars.menu === chosen.menu && bars.option > chosen.option)))));
    if (better) [best, bestScore] = [i, current];
  });
  return best;
}

interface Sample {
  features: number[];
  right: boolean;
  kind: 'paraphrase' | 'no-answer' | 'off-topic';
  /** The semantic rule's samples: the entry's margins over another topic, so that the fit can move the agreement's bars. */
  margins?: TopicMargins;
}

/** The semantic samples with their strong-agreement feature (ruleFeatures' last) for other bars than the shipped ones. */
function withAgreement(samples: readonly Sample[], bars: StrongAgreement): Sample[] {
  return samples.map((sample) => {
    if (!sample.margins) return sample;
    const features = [...sample.features];
    features[3] = strongAgreement(sample.margins, features[2] ?? 0, bars) ? 1 : 0;
    return { ...sample, features };
  });
}

/** Logistic regression of `right` on the features (standardized, gradient descent, a little L2). */
function fitRule(samples: readonly Sample[]): AnswerRule {
  const width = samples[0]?.features.length ?? 0;
  const mean = Array.from({ length: width }, (_, k) => samples.reduce((s, x) => s + (x.features[k] ?? 0), 0) / samples.length);
  const deviation = mean.map((m, k) => Math.sqrt(samples.reduce((s, x) => s + ((x.features[k] ?? 0) - m) ** 2, 0) / samples.length) || 1);
  const scaled = samples.map((s) => s.features.map((f, k) => (f - (mean[k] ?? 0)) / (deviation[k] ?? 1)));
  const weights = new Array<number>(width).fill(0);
  let intercept = 0;
  for (let step = 0; step < 4000; step++) {
    const gradient = new Array<number>(width).fill(0);
    let interceptGradient = 0;
    scaled.forEach((x, i) => {
      const p = 1 / (1 + Math.exp(-x.reduce((sum, f, k) => sum + f * (weights[k] ?? 0), intercept)));
      const error = p - (samples[i]?.right ? 1 : 0);
      x.forEach((f, k) => (gradient[k] = (gradient[k] ?? 0) + error * f));
      interceptGradient += error;
    });
    weights.forEach((w, k) => (weights[k] = w - 0.5 * ((gradient[k] ?? 0) / samples.length + 0.01 * w)));
    intercept -= (0.5 * interceptGradient) / samples.length;
  }
  // Back to the features' own scale, rounded.
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const raw = weights.map((w, k) => w / (deviation[k] ?? 1));
  return { intercept: round(intercept - raw.reduce((sum, w, k) => sum + w * (mean[k] ?? 0), 0)), weights: raw.map(round) };
}

/**
 * The rule with its intercept moved so that 0.5 is the lowest confidence keeping ≥ 70 % of every set's no-answer
 * questions and ≥ 90 % of its off-topic ones unanswered.
 */
function shiftToSilence(rule: AnswerRule, sets: readonly (readonly Sample[])[]): AnswerRule {
  const logit = (s: Sample) => s.features.reduce((sum, f, k) => sum + f * (rule.weights[k] ?? 0), rule.intercept);
  let needed = -Infinity;
  for (const set of sets) {
    for (const [kind, share] of [['no-answer', 0.7], ['off-topic', 0.9]] as const) {
      const logits = set.filter((s) => s.kind === kind).map(logit).sort((a, b) => a - b);
      // The smallest cut above that share of the questions' logits.
      const at = Math.ceil(share * logits.length) - 1;
      if (at >= 0) needed = Math.max(needed, ((logits[at] ?? 0) + (logits[at + 1] ?? logits[at] ?? 0)) / 2);
    }
  }
  return { intercept: Math.round((rule.intercept - needed) * 1000) / 1000, weights: rule.weights };
}

interface RuleFigures {
  precision: number;
  right: number;
  wrong: number;
  silence: number;
  noAnswerAnswered: number;
  offTopicAnswered: number;
}

/** A rule's figures on a fixture's samples at confidence 0.5 (precision over every entry answer given). */
function ruleFigures(samples: readonly Sample[], rule: AnswerRule): RuleFigures {
  let right = 0;
  let wrong = 0;
  let given = 0;
  const count = { paraphrase: 0, 'no-answer': 0, 'off-topic': 0 };
  const answered = { paraphrase: 0, 'no-answer': 0, 'off-topic': 0 };
  for (const sample of samples) {
    count[sample.kind] += 1;
    if (ruleConfidence(rule, sample.features) < 0.5) continue;
    answered[sample.kind] += 1;
    given += 1;
    if (sample.right) right += 1;
    else if (sample.kind === 'paraphrase') wrong += 1;
  }
  const share = (n: number, of: number) => (of === 0 ? 0 : n / of);
  return {
    precision: given === 0 ? 1 : right / given,
    right: share(right, count.paraphrase),
    wrong: share(wrong, count.paraphrase),
    silence: 1 - share(answered.paraphrase, count.paraphrase),
    noAnswerAnswered: share(answered['no-answer'], count['no-answer']),
    offTopicAnswered: share(answered['off-topic'], count['off-topic']),
  };
}


/**
 * The semantic rule (ruleFeatures: margin to another topic, question kinds agree, unknown share, strong agreement)
 * as a score, margin + q·kinds − k·unknown share + s·strong agreement, answering from a threshold T: a grid over q,
 * k, s, T and the agreement's two margins (STRONG_AGREEMENT's lexical and encoder; its unknown share is set, not
 * fitted), the one answering the most paraphrases right (summed over the fixtures) among those meeting the bars
 * (FIT_BARS: pooled precision over the fixtures' answers together, precision and no-answer answered on each).
 * Shipped as the logistic AnswerRule { intercept: −T, weights: [1, q, −k, s] } with the agreement's margins, so that
 * confidence 0.5 is the threshold and a channel's own answerThreshold still moves it. The unknown share's weight
 * starts at 6: a question half of whose words the base does not know ("do you sell bicycles?" against "Do you sell
 * gift cards?") falls back even with a margin of 8, which the fixtures hold too few questions to price.
 */
function fitSemanticRule(sets: readonly (readonly Sample[])[], bars: typeof FIT_BARS = FIT_BARS): { rule: AnswerRule; agreement: StrongAgreement } {
  const kinds = [0, 0.5, 1];
  const unknown = [6, 8, 12];
  const strong = [0, 2, 4, 6, 12];
  let best: { right: number; rule: AnswerRule; agreement: StrongAgreement } | undefined;
  for (const lexical of [0.1, 0.2, 0.3, 0.4, 0.5]) for (const encoder of [0.5, 1, 1.5, 2, 3]) {
    const agreement = { ...STRONG_AGREEMENT, lexical, encoder };
    const agreed = sets.map((set) => withAgreement(set, agreement));
    for (const q of kinds) for (const k of unknown) for (const a of strong) {
      const weights = [1, q, -k, a];
      const scores = agreed.map((set) => set.map((sample) => sample.features.reduce((sum, f, i) => sum + f * (weights[i] ?? 0), 0)));
      for (let t = 2; t <= 10.001; t += 0.25) {
        let right = 0;
        let meets = true;
        let rightAnswers = 0;
        let given = 0;
        for (const [i, set] of agreed.entries()) {
          const f = figuresAt(set, scores[i] ?? [], t);
          if (f.precision < bars.precision || f.noAnswerAnswered > bars.noAnswerAnswered) {
            meets = false;
            break;
          }
          right += f.right;
          rightAnswers += f.rightAnswers;
          given += f.given;
        }
        if (meets && given > 0 && rightAnswers / given < bars.pooledPrecision) meets = false;
        if (meets && (!best || right > best.right + 1e-9)) best = { right, rule: { intercept: -Math.round(t * 100) / 100, weights }, agreement };
      }
    }
  }
  // Nothing meets the bars: answer nothing but exact matches.
  return best ? { rule: best.rule, agreement: best.agreement } : { rule: { intercept: -1000, weights: [1, 0, 0, 0] }, agreement: STRONG_AGREEMENT };
}

function figuresAt(samples: readonly Sample[], scores: readonly number[], threshold: number) {
  let right = 0;
  let given = 0;
  let paraphrases = 0;
  let noAnswer = 0;
  let noAnswerAnswered = 0;
  samples.forEach((sample, i) => {
    const answers = (scores[i] ?? 0) >= threshold;
    if (sample.kind === 'paraphrase') paraphrases += 1;
    if (sample.kind === 'no-answer') noAnswer += 1;
    if (!answers) return;
    given += 1;
    if (sample.right) right += 1;
    if (sample.kind === 'no-answer') noAnswerAnswered += 1;
  });
  return { precision: given ? right / given : 1, right: paraphrases ? right / paraphrases : 0, noAnswerAnswered: noAnswer ? noAnswerAnswered / noAnswer : 0, rightAnswers: right, given };
}
