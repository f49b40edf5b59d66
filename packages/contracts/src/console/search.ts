// The Inbox's search (issue #44, 1): messages, notes, the customer's name and e-mail and the chat id of the
// account's chats, ranked by PostgreSQL full-text search.
import { Type, type Static } from 'typebox';
import { Chat } from '../public/chats.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum, Timestamp } from '../schema.ts';
import { ConsoleErrors } from './common.ts';
import { ASSIGNEE_FILTER_PATTERN } from './inbox.ts';

export const SEARCH_QUERY_MAX = 200;
export const SEARCH_LIMIT_MAX = 100;
export const SEARCH_LIMIT_DEFAULT = 20;

const SearchDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD (UTC day, included)' });

export const SearchHit = object({
  chatId: Type.String({ description: 'the console chat id' }),
  messageId: nullable(
    Type.String({ description: "the matching message or note (its id in the chat's history); null: the chat matched by the customer's name, e-mail or its id" }),
  ),
  chatName: Type.String({ description: "the chat's name (the customer's)" }),
  channelName: Chat.properties.channelName,
  at: Timestamp,
  snippet: Type.String({ description: 'HTML: the matching text, escaped, each match in `<mark>`…`</mark>`' }),
});
export type SearchHit = Static<typeof SearchHit>;

export const SearchQuery = object({
  q: Type.String({
    minLength: 1,
    maxLength: SEARCH_QUERY_MAX,
    description: "words, all of which must match (stemmed by the channel's aiLang); the last one also as a prefix",
  }),
  channelId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  status: Type.Optional(stringEnum(['done', 'not_done'] as const, { description: "the chat's task status" })),
  assignee: Type.Optional(
    Type.String({ pattern: ASSIGNEE_FILTER_PATTERN, description: '`me`: chats assigned to the caller; `none`: unassigned ones; or a member id' }),
  ),
  from: Type.Optional(SearchDate),
  to: Type.Optional(SearchDate),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_LIMIT_MAX, default: SEARCH_LIMIT_DEFAULT })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: '`nextCursor` of the previous page' })),
});
export type SearchQuery = Static<typeof SearchQuery>;

export const searchRoutes = {
  search: route({
    method: 'GET',
    url: '/search',
    operationId: 'search',
    role: 'agent',
    summary: "Search the account's chats: message texts, notes, the customer's name and e-mail, the chat id; best match first",
    description:
      "Full-text search in the text-search configuration of each channel's aiLang (`simple` for languages PostgreSQL has no stemmer for); the last word also matches as a prefix. `from`/`to` bound the hit's time (UTC days, included). 400 for a date that is not one, `to` before `from`, or a bad cursor.",
    tags: ['Inbox'],
    schema: {
      querystring: SearchQuery,
      response: { 200: object({ hits: Type.Array(SearchHit), nextCursor: nullable(Type.String()) }), ...ConsoleErrors },
    },
  }),
};
