// The default engine: embedded, deterministic, no model (docs/architecture.md, Agent engines). The answer of the best
// matching knowledge-base entry (or its action: knowledge-base-actions.ts); when nothing matches well enough but
// candidates are plausible (two bars: the menu's and each option's), it asks the customer to choose among them
// (clarify.ts: Clarifying choices); otherwise the greeting on a chat's first message, else a fallback sentence in the
// channel's language, unless it would be the channel's `handoffAfterFallbacks`-th fallback in a row, a menu ignored
// counting as one: then the chat is handed to the team (docs/architecture.md, Handoff to the team).
import type { ActionDefinition } from '../../actions/action-definition.ts';
import { CLARIFY_BARS, type ClarifyBars, type RetrievedEntry, type RetrievedPassage, type Retriever } from '../../knowledge/retrieval.ts';
import type { StoredChoices } from '../../db/schema.ts';
import { clarifyPromptText, fallbackText, somethingElseText } from '../agent-texts.ts';
import type { AgentAnswer, AgentChannel, AgentEngine, AgentMessage, AgentTurn } from '../engine.ts';
import { holdsValue, pendingAction, withoutValues } from './action-turns.ts';
import { answerPending, startAction, type KbActionTurn } from './knowledge-base-actions.ts';
import { candidatesOf, clarificationText, optionsOf, pickOf, plausibleCandidates, type Candidate } from './clarify.ts';

/**
 * The lowest confidence (retrieval.ts) that counts as an answer, when the encoder's similarity is part of it
 * (English bases) and when the words alone decide. Precision first: a wrong answer is worse than the fallback
 * (which leaves the chat to the team), so the semantic rule is fitted so that 0.5 keeps precision ≥ 0.95 and
 * answers ≤ 15 % of the no-answer questions on each of `npm run eval:kb`'s fixtures (≥ 0.90 cross-validated,
 * docs/decisions.md). A channel may set its own (`agentEngine.answerThreshold`).
 */
export const ANSWER_THRESHOLD = 0.5;
export const LEXICAL_ANSWER_THRESHOLD = 0.5;

/** Entries and passages looked at for a clarification's options (the best distinct answers among them). */
export const CANDIDATES = 10;

export interface KnowledgeBaseEngineDeps {
  retriever: Pick<Retriever, 'retrieveWithPassages'>;
  /** The language of the account's knowledge base; undefined when it is gone. */
  baseLanguage: (accountId: string, knowledgeBaseId: string) => Promise<string | undefined>;
  /** The clarifying bars for both rules instead of the shipped ones (`npm run eval:kb` sweeps them). */
  clarifyBars?: ClarifyBars;
}

/**
 * The agent's replies without an answer at the end of the history, since its last other reply (an answer, an answer
 * to a pick or a greeting ends the run): each fallback, and each clarification, since one followed by no answer was
 * ignored (a pick is answered, a `0` hands off). Asked when the turn gets no answer either.
 */
export function fallbacksInARow(history: readonly AgentMessage[]): number {
  let count = 0;
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const reply = history[i]?.agentReply;
    // A question about an action (a parameter) neither ends the run nor counts: its answer decides.
    if (reply === undefined || reply === 'asked') continue;
    if (reply !== 'fallback' && reply !== 'clarified') break;
    count += 1;
  }
  return count;
}

/** The options the chat's last reply (of the agent or the team) offered, when it was a clarification. */
export function offeredChoices(history: readonly AgentMessage[]): StoredChoices | undefined {
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const message = history[i];
    if (message?.role === 'assistant') return message.choices;
  }
  return undefined;
}

/** What a lookup found for a text: the answer when sure enough, else the candidates to choose from when plausible. */
export interface LookUp {
  answer?: string;
  /** The entry whose answer it is (its action, if any, answers instead: knowledge-base-actions.ts). */
  entryId?: string;
  candidates: Candidate[];
}

/** How the engine decides on what retrieval found (`decide`): the channel's settings and the bars. */
export interface Deciding {
  /** The channel's own answer threshold, else the shipped ones. */
  threshold: number | undefined;
  /** The channel offers choices (clarifyChoices > 0). */
  asking: boolean;
  /** Instead of the shipped CLARIFY_BARS (the eval's sweep). */
  bars?: ClarifyBars | undefined;
  /**
   * The message held a value of one of the channel's actions (an order number matching a parameter's pattern): the
   * question is about the shop's own records, so a menu needs only the option bar (the candidates the customer
   * picks from then fill the action with that value).
   */
  valueSeen?: boolean;
}

/**
 * The answer, or the candidates to offer, for what retrieval found. Worded exactly as one entry's question or synonym:
 * its answer; as several entries' (retrieval marks them all exact): a choice between them. Worded as a phrasing the
 * team kept for an entry: its answer while the answer rule is sure of it, else a choice between it and the other
 * plausible candidates. Otherwise the best entry when the answer rule is sure, else the plausible candidates.
 */
export function decide(entries: readonly RetrievedEntry[], passages: readonly RetrievedPassage[], { threshold, asking, bars, valueSeen }: Deciding): LookUp {
  const needed = (entry: RetrievedEntry) => threshold ?? (entry.semantic ? ANSWER_THRESHOLD : LEXICAL_ANSWER_THRESHOLD);
  const exact = entries.filter((entry) => entry.exact);
  const first = exact[0];
  if (first && (exact.length === 1 || !asking)) return { answer: first.answer, entryId: first.id, candidates: [] };
  if (exact.length > 1) return { candidates: candidatesOf(exact, []) };
  const best = entries[0];
  const semantic = best?.semantic ?? passages[0]?.semantic ?? false;
  const plausible = bars ?? (semantic ? CLARIFY_BARS.semantic : CLARIFY_BARS.lexical);
  const kept = entries.find((entry) => entry.kept);
  if (kept) {
    if (!asking || (kept === best && kept.score >= needed(kept))) return { answer: kept.answer, entryId: kept.id, candidates: [] };
    const [own] = candidatesOf([kept], []);
    const others = candidatesOf(entries.filter((entry) => entry !== kept), passages).filter((candidate) => candidate.relevance >= plausible.option);
    const answers = new Set([kept.answer.trim(), ...others.map((other) => other.reply.trim())]);
    return answers.size > 1 && own ? { candidates: [own, ...others] } : { answer: kept.answer, entryId: kept.id, candidates: [] };
  }
  if (best && best.score >= needed(best)) return { answer: best.answer, entryId: best.id, candidates: [] };
  if (!asking) return { candidates: [] };
  const menu = valueSeen ? { menu: plausible.option, option: plausible.option } : plausible;
  return { candidates: plausibleCandidates(candidatesOf(entries, passages), menu) };
}

export function createKnowledgeBaseEngine({ retriever, baseLanguage, clarifyBars }: KnowledgeBaseEngineDeps): AgentEngine {
  /** `actions`: the channel's, whose parameters' values in the text are not part of the question. */
  async function lookUp(knowledgeBaseId: string, text: string, channel: AgentChannel, actions: readonly ActionDefinition[] = []): Promise<LookUp> {
    const threshold = channel.engine.kind === 'knowledge-base' ? channel.engine.answerThreshold : undefined;
    const asking = channel.clarifyChoices > 0;
    const question = withoutValues(text, actions);
    const { entries, passages } = await retriever.retrieveWithPassages(knowledgeBaseId, question, {
      entries: asking ? CANDIDATES : 1,
      passages: asking ? CANDIDATES : 0,
    });
    return decide(entries, passages, { threshold, asking, bars: clarifyBars, valueSeen: holdsValue(text, actions) });
  }

  function clarification(channel: AgentChannel, question: string, candidates: Candidate[]): AgentAnswer | undefined {
    const options = optionsOf(candidates, channel.clarifyChoices);
    if (options.length === 0) return undefined;
    const aiLang = channel.settings.aiLang;
    const choices: StoredChoices = { question, options, other: somethingElseText(aiLang) };
    return { text: clarificationText(channel.clarifyPrompt ?? clarifyPromptText(aiLang), choices), taskComplete: null, choices };
  }

  return {
    async answer({ accountId, channel, history, pending, firstMessage, actions }: AgentTurn): Promise<AgentAnswer> {
      const texts = pending.map((message) => message.text.trim()).filter((text) => text.length > 0);
      const last = texts.at(-1);
      const fallback = (): AgentAnswer => fallbackOf(channel, history);
      const acting: KbActionTurn | undefined = actions && { channel, actions, fallback };
      // The customer's answer to a question about an action (a parameter, a yes), unless that question is gone.
      const open = acting && last !== undefined ? pendingAction(history) : undefined;
      const answered = acting && open && last !== undefined ? await answerPending(acting, open, last) : undefined;
      if (answered) return answered;
      // The customer's answer to a clarification: a pick, `0` (to the team), or else a new question.
      const offered = offeredChoices(history);
      const picked = offered && last !== undefined ? pickOf(offered, last) : undefined;
      if (picked === 'other') return { text: null, taskComplete: null, handoff: { reason: 'fallbacks' } };
      if (offered && picked) {
        const learned = { entryId: picked.entryId, question: offered.question };
        const action = acting && picked.entryId ? await acting.actions.ofEntry(picked.entryId) : undefined;
        // The picked entry's action reads its values in the question that led to the clarification.
        if (acting && action) return { ...(await startAction(acting, action, offered.question)), picked: learned };
        return { text: picked.reply, taskComplete: null, picked: learned };
      }

      let found: LookUp = { candidates: [] };
      let asked = '';
      const language = channel.knowledgeBaseId ? await baseLanguage(accountId, channel.knowledgeBaseId) : undefined;
      if (channel.knowledgeBaseId && language !== undefined && last !== undefined) {
        // A burst is looked up whole; when that finds nothing, its last message alone (the newest question).
        asked = texts.join('\n');
        found = await lookUp(channel.knowledgeBaseId, asked, channel, actions?.list);
        if (found.answer === undefined && texts.length > 1) {
          const alone = await lookUp(channel.knowledgeBaseId, last, channel, actions?.list);
          if (alone.answer !== undefined || found.candidates.length === 0) [found, asked] = [alone, last];
        }
      }
      if (found.answer !== undefined) {
        const action = acting && found.entryId ? await acting.actions.ofEntry(found.entryId) : undefined;
        if (acting && action) return startAction(acting, action, asked);
        return { text: found.answer, taskComplete: null };
      }
      const limit = channel.handoffAfterFallbacks;
      const clarify = clarification(channel, asked, found.candidates);
      if (clarify) {
        // Menus ignored as often as fallbacks are allowed: to the team rather than one more menu.
        if (limit > 0 && fallbacksInARow(history) >= limit) return { text: null, taskComplete: null, handoff: { reason: 'fallbacks' } };
        return clarify;
      }
      const greeting = channel.settings.greeting.trim();
      if (firstMessage && greeting) return { text: greeting, taskComplete: null, greeting: true };
      return fallback();
    },
  };
}

/** The fallback sentence, or the handoff instead of the channel's `handoffAfterFallbacks`-th fallback in a row. */
function fallbackOf(channel: AgentChannel, history: readonly AgentMessage[]): AgentAnswer {
  const limit = channel.handoffAfterFallbacks;
  if (limit > 0 && fallbacksInARow(history) + 1 >= limit) return { text: null, taskComplete: null, handoff: { reason: 'fallbacks' } };
  return { text: fallbackText(channel.settings.aiLang), taskComplete: null, fallback: true };
}
