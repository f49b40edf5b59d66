// Knowledge gaps (issue #37; docs/architecture.md, Replay and knowledge gaps): the customer questions of a window,
// on channels using a knowledge base, that got a fallback, a `0` to a clarification or a handoff, grouped by
// meaning with the retrieval's own word signals — the base analyzer's stemmed terms (the lemmatized, stemmed words
// BM25F matches on), two phrasings in one group when they share most of them (Dice ≥ GROUP_BAR with the group's
// most asked phrasing) — biggest group first, with the members' replies that followed them. A customer asking for a
// person is no gap in the knowledge and is left out. A group's id is a hash of its most asked phrasing (stable while
// that phrasing stays the most asked).
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

/** Share of stemmed terms (Dice) from which two questions are one gap. */
export const GROUP_BAR = 0.5;
const EXAMPLES = 5;
const TEAM_ANSWERS = 5;
const GROUPS_MAX = 100;

export interface GapsServiceDeps {
  db: Executor;
  clock: Clock;
  baseLanguage: (accountId: string, knowledgeBaseId: string) => Promise<string | undefined>;
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
  texts: string[];
  answers: string[];
}

export function groupGaps(language: string, questions: readonly { question: string; teamAnswer: string | null }[]): KnowledgeGap[] {
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
  // The most asked phrasings found the groups; each other joins the first group whose founder it is close to.
  const ordered = [...phrasings.values()].sort((a, b) => b.texts.length - a.texts.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const groups: Phrasing[][] = [];
  for (const phrasing of ordered) {
    const group = groups.find(([founder]) => founder !== undefined && dice(founder.terms, phrasing.terms) >= GROUP_BAR);
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

export function createGapsService({ db, clock, baseLanguage }: GapsServiceDeps) {
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
        // A `0` to a clarification: the gap is the question that was clarified.
        const question = row.offered && pickOf(row.offered, row.text) === 'other' ? row.offered.question : row.text;
        if (asksForPerson(question, aiLang) || /^[\s\p{P}\p{N}]*$/u.test(question)) continue;
        questions.push({ question, teamAnswer: row.teamAnswer });
      }
      return { gaps: groupGaps(language, questions) };
    },
  };
}

export type GapsService = ReturnType<typeof createGapsService>;
