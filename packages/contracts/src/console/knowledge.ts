// Knowledge bases and their question-and-answer entries (the default agent answers from them).
import { Type, type Static } from 'typebox';
import { route } from '../route.ts';
import { nullable, object, stringEnum, Timestamp } from '../schema.ts';
import { AI_LANG_PATTERN } from '../webhooks/events.ts';
import { ConsoleErrors, Uuid } from './common.ts';

export const QUESTION_MAX = 1000;
export const ANSWER_MAX = 10_000;

/** An OpenAI-compatible embeddings provider as shown: the key is never echoed. */
export const EmbeddingsProvider = object({
  baseUrl: Type.String(),
  model: Type.String(),
  apiKeySet: Type.Boolean({ description: 'an API key is stored (it is never shown)' }),
});
export type EmbeddingsProvider = Static<typeof EmbeddingsProvider>;

/** An OpenAI-compatible embeddings provider as set: `POST {baseUrl}/embeddings` with `{ model, input }`. */
export const EmbeddingsProviderInput = object({
  baseUrl: Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000, description: 'e.g. https://api.openai.com/v1' }),
  model: Type.String({ minLength: 1, maxLength: 200, description: 'e.g. text-embedding-3-small, nomic-embed-text' }),
  apiKey: Type.Optional(
    // Sent as `Authorization: Bearer <apiKey>`: printable ASCII without spaces.
    Type.String({
      minLength: 1,
      maxLength: 500,
      pattern: '^[\\x21-\\x7E]+$',
      description: 'write-only; omitted, the stored key is kept when baseUrl is unchanged',
    }),
  ),
});
export type EmbeddingsProviderInput = Static<typeof EmbeddingsProviderInput>;

export const KnowledgeBase = object({
  id: Type.String(),
  name: Type.String(),
  language: Type.String({ description: 'language of the entries (ISO 639-1), used for full-text search' }),
  /** The base's embeddings provider; null: the built-in encoder (English bases). */
  embeddings: nullable(EmbeddingsProvider),
  entryCount: Type.Integer({ minimum: 0 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type KnowledgeBase = Static<typeof KnowledgeBase>;

export const KnowledgeEntry = object({
  id: Type.String(),
  knowledgeBaseId: Type.String(),
  question: Type.String(),
  synonyms: Type.Array(Type.String(), { description: 'other ways customers ask the question; searched like it' }),
  answer: Type.String(),
  source: stringEnum(['manual', 'correction'] as const),
  messageId: nullable(Type.String({ description: 'the disliked agent reply a correction came from' })),
  actionId: nullable(Type.String({ description: "no-model path: when the entry matches, the agent runs this action and sends its `answer` instead of the entry's" })),
  learnedQuestions: Type.Array(
    object({
      id: Type.String(),
      text: Type.String(),
      picks: Type.Integer({ description: 'how many times customers chose the entry after asking so' }),
      customers: Type.Integer({ minimum: 0, description: 'how many different customers (chats) chose the entry after asking so' }),
      competing: Type.Array(object({ entryId: Type.String(), question: Type.String() }), {
        description:
          'other entries the phrasing is as close to (worded as their question, synonym or learned phrasing, or ranked about as high): kept, it would be clarified between them rather than answered directly; empty when it would be answered directly',
      }),
    }),
    {
      description:
        "phrasings customers chose this entry for (clarifying choices), the most picked first, until kept (moved into `synonyms`) or discarded",
    },
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type KnowledgeEntry = Static<typeof KnowledgeEntry>;

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Language = Type.String({ pattern: AI_LANG_PATTERN, maxLength: 16 });
const Question = Type.String({ minLength: 1, maxLength: QUESTION_MAX });
const Answer = Type.String({ minLength: 1, maxLength: ANSWER_MAX });
export const SYNONYMS_MAX = 20;
const Synonyms = Type.Array(Type.String({ minLength: 1, maxLength: QUESTION_MAX }), { maxItems: SYNONYMS_MAX });
/** An entry's action (one of the account's; null: none): the no-model path runs it when the entry matches. */
const ActionRef = nullable(Uuid);
const KbParams = object({ id: Uuid });
const EntryParams = object({ id: Uuid, entryId: Uuid });
const LearnedParams = object({ id: Uuid, entryId: Uuid, learnedId: Uuid });

export const knowledgeRoutes = {
  createKnowledgeBase: route({
    method: 'POST',
    url: '/knowledge-bases',
    operationId: 'createKnowledgeBase',
    role: 'admin',
    summary: 'Create a knowledge base',
    tags: ['Knowledge bases'],
    schema: {
      body: object({ name: Name, language: Type.Optional(Language), embeddings: Type.Optional(nullable(EmbeddingsProviderInput)) }),
      response: { 201: KnowledgeBase, ...ConsoleErrors },
    },
  }),
  listKnowledgeBases: route({
    method: 'GET',
    url: '/knowledge-bases',
    operationId: 'listKnowledgeBases',
    role: 'agent',
    summary: "The account's knowledge bases",
    tags: ['Knowledge bases'],
    schema: { response: { 200: object({ knowledgeBases: Type.Array(KnowledgeBase) }), ...ConsoleErrors } },
  }),
  updateKnowledgeBase: route({
    method: 'PUT',
    url: '/knowledge-bases/:id',
    operationId: 'updateKnowledgeBase',
    role: 'admin',
    summary: 'Rename a knowledge base or set its embeddings provider (partial)',
    description:
      'Setting, changing or removing `embeddings` re-embeds every entry of the base in the background; until an entry is done, it is found by its words.',
    tags: ['Knowledge bases'],
    schema: {
      params: KbParams,
      body: object({ name: Type.Optional(Name), embeddings: Type.Optional(nullable(EmbeddingsProviderInput)) }),
      response: { 200: KnowledgeBase, ...ConsoleErrors },
    },
  }),
  deleteKnowledgeBase: route({
    method: 'DELETE',
    url: '/knowledge-bases/:id',
    operationId: 'deleteKnowledgeBase',
    role: 'admin',
    summary: 'Delete a knowledge base with its entries (channels using it are left without one)',
    tags: ['Knowledge bases'],
    schema: { params: KbParams, response: { 200: object({ success: Type.Literal(true) }), ...ConsoleErrors } },
  }),
  listEntries: route({
    method: 'GET',
    url: '/knowledge-bases/:id/entries',
    operationId: 'listEntries',
    role: 'agent',
    summary: 'Entries of a knowledge base, newest first',
    tags: ['Knowledge bases'],
    schema: {
      params: KbParams,
      querystring: object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
        offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, default: 0 })),
        q: Type.Optional(Type.String({ maxLength: 200, description: 'only entries whose question, synonyms or answer contain this text' })),
      }),
      response: { 200: object({ entries: Type.Array(KnowledgeEntry), count: Type.Integer() }), ...ConsoleErrors },
    },
  }),
  createEntry: route({
    method: 'POST',
    url: '/knowledge-bases/:id/entries',
    operationId: 'createEntry',
    role: 'admin',
    summary: 'Add a question-and-answer entry',
    tags: ['Knowledge bases'],
    schema: {
      params: KbParams,
      body: object({ question: Question, synonyms: Type.Optional(Synonyms), answer: Answer, actionId: Type.Optional(ActionRef) }),
      response: { 201: KnowledgeEntry, ...ConsoleErrors },
    },
  }),
  updateEntry: route({
    method: 'PUT',
    url: '/knowledge-bases/:id/entries/:entryId',
    operationId: 'updateEntry',
    role: 'admin',
    summary: 'Change an entry (partial)',
    tags: ['Knowledge bases'],
    schema: {
      params: EntryParams,
      body: object({
        question: Type.Optional(Question),
        synonyms: Type.Optional(Synonyms),
        answer: Type.Optional(Answer),
        actionId: Type.Optional(ActionRef),
      }),
      response: { 200: KnowledgeEntry, ...ConsoleErrors },
    },
  }),
  keepLearnedQuestion: route({
    method: 'POST',
    url: '/knowledge-bases/:id/entries/:entryId/learned/:learnedId/keep',
    operationId: 'keepLearnedQuestion',
    role: 'admin',
    summary: "Keep a phrasing customers chose: it moves into the entry's synonyms",
    tags: ['Knowledge bases'],
    schema: { params: LearnedParams, response: { 200: KnowledgeEntry, ...ConsoleErrors } },
  }),
  discardLearnedQuestion: route({
    method: 'DELETE',
    url: '/knowledge-bases/:id/entries/:entryId/learned/:learnedId',
    operationId: 'discardLearnedQuestion',
    role: 'admin',
    summary: 'Discard a phrasing customers chose',
    tags: ['Knowledge bases'],
    schema: { params: LearnedParams, response: { 200: object({ success: Type.Literal(true) }), ...ConsoleErrors } },
  }),
  deleteEntry: route({
    method: 'DELETE',
    url: '/knowledge-bases/:id/entries/:entryId',
    operationId: 'deleteEntry',
    role: 'admin',
    summary: 'Delete an entry',
    tags: ['Knowledge bases'],
    schema: { params: EntryParams, response: { 200: object({ success: Type.Literal(true) }), ...ConsoleErrors } },
  }),
} as const;
