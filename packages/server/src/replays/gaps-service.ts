// Knowledge gaps (issue #37; docs/architecture.md, Replay and knowledge gaps): the customer questions of a window, on
// channels using a knowledge base, that got a fallback, a `0` to a clarification, a clarification ignored (the next
// message no pick, and no answer to it either) or a handoff, grouped by meaning with the retrieval's own word signals —
// the base analyzer's stemmed terms (the lemmatized, stemmed words BM25F matches on), two phrasings in one group when
// they share most of them (Dice ≥ GROUP_BAR with the group's most asked phrasing) — biggest group first, with the
// members' replies that followed them. A customer asking for a person is no gap in the knowledge and is left out. A
// group's id is a hash of its most asked phrasing (stable while that phrasing stays the most asked). English bases
// with the built-in sentence encoder (the one retrieval ranks with) group by meaning instead (issue #42): two phrasings
// are one gap when the cosine of their vectors reaches SEMANTIC_GROUP_BAR ("Do you have gift vouchers?" with "Do you
// offer gift cards?"), words aside; phrasings past the first VECTOR_PHRASINGS most asked are compared by words.
import { createHash } from 'node:crypto';
import type { KnowledgeGap } from '@parley/contracts';
import { pickOf } from '../agent/engines/clarify.ts';
import { asksForPerson } from '../agent/handoff/person-request.ts';
import type { Clock } from '../lib/clock.ts';
import type { Executor } from '../db/client.ts';
import { Errors } from '../errors.ts';
import { questionKey } from '../knowledge/normalize.ts';
import { dice, termsOf } from './agreement.ts';
import { createGapsStore } from './gaps-store.ts';

/** Share of stemmed terms (Dice) from which two questions are one gap (no encoder). */
export const GROUP_BAR = 0.5;
/**
 * The encoder's cosine from which two questions are one gap, fitted on a few pairs (docs/decisions.md, "Knowledge
 * gaps by meaning"): the same question in other words scored 0.73–0.86 ("Are gift vouchers available?" / "Can I
 * purchase a gift card?" 0.73, "Do you have gift vouchers?" / "Do you offer gift cards?" 0.74, "Do you accept crypto?"
 * / "Do you take cryptocurrency payments?" 0.83, "Do you have a shop in Berlin?" / "Is there a store in Berlin?"
 * 0.86), different ones on a shared topic 0.56–0.67 ("Do you offer gift cards?" / "Do you offer student discounts?"
 * 0.67, "Do you have a loyalty program?" / "Do you have gift vouchers?" 0.62, "Can I buy a gift card?" / "Can I buy
 * a bike?" 0.56, which words alone join).
 */
export const SEMANTIC_GROUP_BAR = 0.72;
/** The most asked phrasings embedded for one list (one call of the encoder); the rest are compared by words. */
export const VECTOR_PHRASINGS = 1_000;
const EXAMPLES = 5;
const TEAM_ANSWERS = 5;
const GROUPS_MAX = 100;

export interface GapsServiceDeps {
  db: Executor;
  clock: Clock;
  baseLanguage: (accountId: string, knowledgeBaseId: string) => Promise<string | undefined>;
  /** The built-in encoder's vectors of the texts (English bases); undefined: compare words. */
  embedTexts?: (language: string, texts: readonly string[]) => Promise<number[][] | undefined>;
}

/** Cosine of two vectors, 0 when either is empty or zero. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Texts by how often they came, the most common first (then the first seen). */
function byCount(texts: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([text]) => text);
}

interface Phrasing {
  key: string;
  terms: Set<string>;
  vector?: readonly number[];
  texts: string[];
  answers: string[];
}

/** Whether two phrasings ask the same: by the encoder when both have vectors, else by their words. */
function sameQuestion(a: Phrasing, b: Phrasing): boolean {
  if (a.vector && b.vector) return cosine(a.vector, b.vector) >= SEMANTIC_GROUP_BAR;
  return dice(a.terms, b.terms) >= GROUP_BAR;
}

/** The phrasings (distinct by their key), the most asked first (then by key): the order groups are founded in. */
function phrasingsOf(language: string, questions: readonly { question: string; teamAnswer: string | null }[]): Phrasing[] {
  // The same words (case, punctuation aside) are one phrasing.
  const phrasings = new Map<string, Phrasing>();
  for (const { question, teamAnswer } of questions) {
    const key = questionKey(question);
    if (key.length === 0) continue;
    let phrasing = phrasings.get(key);
    if (!phrasing) phrasings.set(key, (phrasing = { key, terms: termsOf(language, question), texts: [], answers: [] }));
    phrasing.texts.push(question.trim());
    if (teamAnswer?.trim()) phrasing.answers.push(teamAnswer.trim());
  }
  return [...phrasings.values()].sort((a, b) => b.texts.length - a.texts.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The phrasings grouped: `vectors`, when given, are the encoder's for the first phrasings (the most asked, in
 * `phrasingsOf`'s order), compared by cosine; the others by words.
 */
function groupPhrasings(ordered: Phrasing[], vectors?: readonly (readonly number[])[]): KnowledgeGap[] {
  vectors?.forEach((vector, i) => {
    const phrasing = ordered[i];
    if (phrasing && vector.length > 0) phrasing.vector = vector;
  });
  // The most asked phrasings found the groups; each other joins the first group whose founder asks the same.
  const groups: Phrasing[][] = [];
  for (const phrasing of ordered) {
    const group = groups.find(([founder]) => founder !== undefined && sameQuestion(founder, phrasing));
    if (group) group.push(phrasing);
    else groups.push([phrasing]);
  }
  return groups
    .map((group) => {
      const founder = group[0] as Phrasing;
      const texts = group.flatMap((p) => p.texts);
      return {
        id: createHash('sha256').update(founder.key).digest('hex').slice(0, 16),
        size: texts.length,
        examples: byCount(texts).slice(0, EXAMPLES),
        teamAnswers: byCount(group.flatMap((p) => p.answers)).slice(0, TEAM_ANSWERS),
      };
    })
    .sort((a, b) => b.size - a.size)
    .slice(0, GROUPS_MAX);
}

/** The texts of the phrasings to embed, in the order `groupGaps` reads their vectors. */
export function textsToEmbed(language: string, questions: readonly { question: string; teamAnswer: string | null }[]): string[] {
  return phrasingsOf(language, questions)
    .slice(0, VECTOR_PHRASINGS)
    .map((p) => p.texts[0] ?? p.key);
}

/** The questions grouped by meaning; `vectors`: the encoder's of `textsToEmbed`'s texts, in order (else words only). */
export function groupGaps(
  language: string,
  questions: readonly { question: string; teamAnswer: string | null }[],
  vectors?: readonly (readonly number[])[],
): KnowledgeGap[] {
  return groupPhrasings(phrasingsOf(language, questions), vectors);
}

export function createGapsService({ db, clock, baseLanguage, embedTexts }: GapsServiceDeps) {
  const store = createGapsStore(db);
  return {
    async list(accountId: string, knowledgeBaseId: string, days: number): Promise<{ gaps: KnowledgeGap[] }> {
      const language = await baseLanguage(accountId, knowledgeBaseId);
      if (language === undefined) throw Errors.knowledgeBaseNotFound();
      const since = new Date(clock.now().getTime() - days * 86_400_000);
      const rows = await store.unanswered(accountId, knowledgeBaseId, since);
      const questions = [];
      // Oldest first: among phrasings asked as often, the first asked leads.
      for (const row of rows.reverse()) {
        const aiLang = row.aiLang ?? 'en';
        const pick = row.offered ? pickOf(row.offered, row.text) : undefined;
        // A menu answered by no pick and followed by no answer (this reply): its question went unanswered.
        const ignored = row.offered && pick === undefined ? [row.offered.question] : [];
        // A `0` to a clarification: the gap is the question that was clarified; a clarification is no gap itself.
        const asked = row.clarified ? [] : [row.offered && pick === 'other' ? row.offered.question : row.text];
        for (const question of [...ignored, ...asked]) {
          if (asksForPerson(question, aiLang) || /^[\s\p{P}\p{N}]*$/u.test(question)) continue;
          questions.push({ question, teamAnswer: row.teamAnswer });
        }
      }
      // The encoder failing (its thread gone) leaves the words: the list is still shown.
      const vectors = embedTexts ? await embedTexts(language, textsToEmbed(language, questions)).catch(() => undefined) : undefined;
      return { gaps: groupGaps(language, questions, vectors) };
    },
  };
}

export type GapsService = ReturnType<typeof createGapsService>;
