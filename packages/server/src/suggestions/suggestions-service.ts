// Reply suggestions for a member of the team (issue #44; docs/decisions.md, "Reply suggestions"): for the chat's
// last customer message, at most RETRIEVED_SUGGESTIONS_MAX of the knowledge entries' answers, the document passages
// and the account's saved replies, ranked by the agent's own retrieval (each with its answer rule's confidence, the
// saved replies by words: retrieval.ts `rankTexts`), best first; then, when the channel's engine is
// openai-compatible, one draft of its model from the chat and that knowledge. Nothing is sent: the Inbox puts a
// suggestion in the composer.
import { RETRIEVED_SUGGESTIONS_MAX, type Suggestion } from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { ModelDrafter } from '../agent/engines/model-draft.ts';
import { DRAFT_HISTORY_MESSAGES } from '../agent/engines/model-draft.ts';
import { passageSource } from '../agent/engines/openai-engine.ts';
import type { ChatsStore } from '../chats/chats-store.ts';
import { DEFAULT_SETTINGS } from '../channels/channels-service.ts';
import type { ChannelsStore } from '../channels/channels-store.ts';
import type { Database, Executor } from '../db/client.ts';
import { Errors } from '../errors.ts';
import { rankTexts, type RankedText, type RetrievedEntry, type RetrievedPassage, type Retriever } from '../knowledge/retrieval.ts';
import { isUuid } from '../lib/ids.ts';
import type { MessagesStore } from '../messages/messages-store.ts';
import type { CannedResponsesStore } from '../replies/canned-responses-store.ts';

export interface SuggestionsServiceDeps {
  db: Database;
  logger: FastifyBaseLogger;
  chatsStore: (executor: Executor) => Pick<ChatsStore, 'find'>;
  messagesStore: (executor: Executor) => Pick<MessagesStore, 'listRecent'>;
  channelsStore: (executor: Executor) => Pick<ChannelsStore, 'find'>;
  savedReplies: Pick<CannedResponsesStore, 'list'>;
  retriever: Pick<Retriever, 'retrieveWithPassages'>;
  baseLanguage: (accountId: string, knowledgeBaseId: string) => Promise<string | undefined>;
  drafter: Pick<ModelDrafter, 'draft'>;
}

/** A retrieved candidate: its suggestion and the answer rule's confidence that it answers the message (0–1). */
export interface Candidate {
  suggestion: Suggestion;
  score: number;
}

/** Entries first, then passages, then saved replies, at equal confidence. */
const SOURCE_ORDER: Record<Suggestion['source'], number> = { entry: 0, passage: 1, saved_reply: 2, model: 3 };

/** The best candidates, one per text (the same answer twice is one suggestion). */
export function bestSuggestions(candidates: Candidate[], limit = RETRIEVED_SUGGESTIONS_MAX): Suggestion[] {
  const sorted = [...candidates].sort((a, b) => b.score - a.score || SOURCE_ORDER[a.suggestion.source] - SOURCE_ORDER[b.suggestion.source]);
  const seen = new Set<string>();
  const best: Suggestion[] = [];
  for (const { suggestion } of sorted) {
    const key = suggestion.text.trim();
    if (seen.has(key)) continue;
    seen.add(key);
    best.push(suggestion);
    if (best.length === limit) break;
  }
  return best;
}

/** The candidates of what retrieval found: entries, passages and saved replies, each with its confidence. */
export function candidatesOf(found: {
  entries: readonly Pick<RetrievedEntry, 'id' | 'answer' | 'score'>[];
  passages: readonly Pick<RetrievedPassage, 'document' | 'headingPath' | 'text' | 'score'>[];
  saved: readonly RankedText[];
}): Candidate[] {
  return [
    ...found.entries.map((entry) => ({ suggestion: { text: entry.answer, source: 'entry' as const, ref: entry.id }, score: entry.score })),
    ...found.passages.map((passage) => ({ suggestion: { text: passage.text, source: 'passage' as const, ref: passageSource(passage) }, score: passage.score })),
    ...found.saved.map((reply) => ({ suggestion: { text: reply.text, source: 'saved_reply' as const, ref: reply.id }, score: reply.score })),
  ];
}

export function createSuggestionsService(deps: SuggestionsServiceDeps) {
  const { db, logger } = deps;

  /** The retrieved candidates for a customer's text: the base's entries and passages, the account's saved replies. */
  async function retrieved(accountId: string, knowledgeBaseId: string | null, language: string | undefined, aiLang: string, text: string): Promise<{
    candidates: Candidate[];
    knowledge: { question: string; answer: string }[];
    passages: { document: string; headingPath: string[]; text: string }[];
  }> {
    const { entries, passages } =
      knowledgeBaseId && language !== undefined
        ? await deps.retriever.retrieveWithPassages(knowledgeBaseId, text, { entries: RETRIEVED_SUGGESTIONS_MAX, passages: RETRIEVED_SUGGESTIONS_MAX })
        : { entries: [], passages: [] };
    const saved = rankTexts(language ?? aiLang, await deps.savedReplies.list(accountId), text, RETRIEVED_SUGGESTIONS_MAX);
    return {
      candidates: candidatesOf({ entries, passages, saved }),
      knowledge: entries.map(({ question, answer }) => ({ question, answer })),
      passages: passages.map(({ document, headingPath, text: passageText }) => ({ document, headingPath, text: passageText })),
    };
  }

  return {
    async suggest(accountId: string, chatId: string): Promise<{ suggestions: Suggestion[] }> {
      const chat = isUuid(chatId) ? await deps.chatsStore(db).find(accountId, chatId) : undefined;
      if (!chat) throw Errors.consoleChatNotFound();
      const recent = await deps.messagesStore(db).listRecent(accountId, chatId, DRAFT_HISTORY_MESSAGES);
      const last = recent.findLast((message) => message.role === 'user' && message.text.trim().length > 0);
      const channel = last ? await deps.channelsStore(db).find(accountId, chat.channelId) : undefined;
      if (!last || !channel) return { suggestions: [] };
      const settings = { ...DEFAULT_SETTINGS, ...channel.settings };
      const language = channel.knowledgeBaseId ? await deps.baseLanguage(accountId, channel.knowledgeBaseId) : undefined;
      const found = await retrieved(accountId, channel.knowledgeBaseId, language, settings.aiLang, last.text);
      const suggestions = bestSuggestions(found.candidates);
      if (channel.agentEngine.kind !== 'openai-compatible') return { suggestions };
      try {
        const upTo = recent.lastIndexOf(last) + 1;
        const text = await deps.drafter.draft({
          channel: { engine: channel.agentEngine, apiKey: channel.agentApiKey, settings },
          messages: recent.slice(0, upTo).map((message) => ({ role: message.role === 'user' ? 'user' : 'assistant', text: message.text })),
          knowledge: found.knowledge,
          passages: found.passages,
        });
        if (text !== null) suggestions.push({ text, source: 'model', ref: null });
      } catch (error) {
        // The model failed or is unreachable: the retrieved suggestions stand alone.
        logger.warn({ chatId, channelId: channel.id, err: error instanceof Error ? error.message : String(error) }, 'model draft failed');
      }
      return { suggestions };
    },
  };
}

export type SuggestionsService = ReturnType<typeof createSuggestionsService>;
