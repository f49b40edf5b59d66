// The Inbox (docs/architecture.md, Console API): how a team member acts on the same chats as the public API.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { Chat, ListChatsQuery } from '../public/chats.ts';
import { MESSAGE_TEXT_MAX } from '../public/messages.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum, Timestamp } from '../schema.ts';
import { TaskStatus, WebhookMessage } from '../webhooks/events.ts';
import { InboxAction } from './actions.ts';
import { ConsoleErrors } from './common.ts';

/** A message as the Inbox shows it: the webhook message object plus the rating of agent replies. */
export const InboxMessage = object({
  kind: Type.Literal('message', { description: 'a customer, agent or team message (notes are `note`)' }),
  ...WebhookMessage.properties,
  rating: nullable(stringEnum(['liked', 'disliked'] as const)),
  fromAgent: Type.Boolean({ description: 'an agent reply: the only kind that can be marked correct or corrected' }),
  agentOutcome: nullable(
    stringEnum(['answered', 'fallback', 'handoff'] as const, {
      description: "an agent reply's kind: an answer, the fallback sentence or the handoff message (null: not an agent reply); the web account offers corrections under answers only",
    }),
  ),
});
export type InboxMessage = Static<typeof InboxMessage>;

export const NOTE_TEXT_MAX = 10_000;

/** A private note of the team: shown in the console's history only, never sent anywhere. */
export const InboxNote = object({
  kind: Type.Literal('note'),
  id: Type.String(),
  text: Type.String(),
  author: object({ id: nullable(Type.String({ description: 'null once the author was removed' })), name: Type.String() }),
  createdAt: Timestamp,
});
export type InboxNote = Static<typeof InboxNote>;

/**
 * The agent's summary of a handoff (issue #44): a note of `kind: "summary"` written with the handoff — the customer's
 * request, what the agent answered or offered, the reason, the customer's card — shown only in the console.
 */
export const InboxSummary = object({
  kind: Type.Literal('summary'),
  id: Type.String(),
  text: Type.String({ description: 'lines `Request: …`, `Agent: …`, `Reason: …`, `Customer: …`' }),
  author: InboxNote.properties.author,
  createdAt: Timestamp,
});
export type InboxSummary = Static<typeof InboxSummary>;

/** The note as `POST /chat/notes/{chatId}/` answers it. */
export const Note = object({
  id: Type.String(),
  text: Type.String(),
  author: InboxNote.properties.author,
  createdAt: Timestamp,
});
export type Note = Static<typeof Note>;

const ChatParams = object({ chatId: Type.String({ minLength: 1, maxLength: 200 }) });

/** The member working a chat (Inbox assignment); null: nobody. */
export const Assignee = nullable(object({ id: Type.String(), name: Type.String() }));
export type Assignee = Static<typeof Assignee>;

/** The agent handed the chat to the team and no member has replied or resumed the agent since. */
const NeedsHuman = Type.Boolean({ description: 'the agent handed the chat to the team; cleared by a team reply or by resuming the agent' });

/** A chat of the Inbox's list: the public chat object plus its assignee and whether it needs a human. */
export const InboxListChat = object({ ...Chat.properties, assignee: Assignee, needsHuman: NeedsHuman });
export type InboxListChat = Static<typeof InboxListChat>;

/** A chat as the Inbox shows it: the public chat object plus its assignee, whether it needs a human and whether the customer is banned. */
export const InboxChat = object({ ...Chat.properties, assignee: Assignee, needsHuman: NeedsHuman, banned: Type.Boolean() });
export type InboxChat = Static<typeof InboxChat>;

/** The customer card's list of the customer's other chats holds at most this many, newest activity first. */
export const CUSTOMER_OTHER_CHATS_MAX = 10;

/** One of the customer's other chats, as the customer card links it. */
export const CustomerOtherChat = object({
  id: Type.String({ description: 'Chat ID (the Inbox opens it)' }),
  channelName: Chat.properties.channelName,
  channelSettingsName: Chat.properties.channelSettingsName,
  dialogName: Type.String(),
  text: Type.String({ description: 'Text of the last message' }),
  lastMessageDate: Timestamp,
});
export type CustomerOtherChat = Static<typeof CustomerOtherChat>;

/** What the customer card shows beyond the chat itself (issue #34, item 5). */
export const ChatCustomer = object({
  page: nullable(
    Type.String({ description: 'widget chats: the host page (origin and path) the visitor last opened the widget on; null: unknown or another channel' }),
  ),
  otherChats: Type.Array(CustomerOtherChat, {
    maxItems: CUSTOMER_OTHER_CHATS_MAX,
    description: "the customer's other chats, newest activity first: the widget visitor's other conversations in the channel and the account's chats with the same e-mail",
  }),
});
export type ChatCustomer = Static<typeof ChatCustomer>;

/** `assignee` of the Inbox's list: `me`, `none` (unassigned) or a member's id. */
export const ASSIGNEE_FILTER_PATTERN = '^(me|none|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$';

function chatAction(operationId: string, url: string, summary: string) {
  return route({
    method: 'POST',
    url,
    operationId,
    role: 'agent',
    summary,
    tags: ['Inbox'],
    schema: { params: ChatParams, response: { 200: InboxChat, ...ConsoleErrors } },
  });
}
/** Where a reply suggestion comes from (issue #44): a knowledge entry's answer, a document passage, a saved reply, a model's draft. */
export const SUGGESTION_SOURCES = ['entry', 'passage', 'saved_reply', 'model'] as const;
/** At most this many suggestions are retrieved for the last customer message (a model's draft comes beside them). */
export const RETRIEVED_SUGGESTIONS_MAX = 3;

/** A reply the Inbox offers above the composer: `Use` puts its text in the composer, nothing is sent. */
export const Suggestion = object({
  text: Type.String(),
  source: stringEnum(SUGGESTION_SOURCES),
  ref: nullable(
    Type.String({
      description:
        "what it comes from: the entry's id, `document › headings` of a passage, the saved reply's id; null for a model's draft",
    }),
  ),
});
export type Suggestion = Static<typeof Suggestion>;

const MessageParams = object({ messageId: Type.String({ minLength: 1, maxLength: 200 }) });
const InboxTagName = Type.String({ minLength: 1, maxLength: 100 });

export const inboxRoutes = {
  listInboxChats: route({
    method: 'GET',
    url: '/chat/all-chats/',
    operationId: 'listInboxChats',
    role: 'agent',
    summary: 'Chats of the account, newest activity first (the filters of the public list)',
    tags: ['Inbox'],
    schema: {
      querystring: object({
        ...ListChatsQuery.properties,
        unread: Type.Optional(Type.Boolean({ description: '`true` selects only chats with unread messages or flagged unread' })),
        assignee: Type.Optional(
          Type.String({ pattern: ASSIGNEE_FILTER_PATTERN, description: '`me`: chats assigned to the caller; `none`: unassigned ones; or a member id' }),
        ),
        needsHuman: Type.Optional(Type.Boolean({ description: '`true` selects only chats the agent handed to the team (`needsHuman: true`)' })),
      }),
      response: { 200: object({ chats: Type.Array(InboxListChat), count: Type.Integer() }), ...ConsoleErrors },
    },
  }),
  listMessages: route({
    method: 'GET',
    url: '/chat/messages/:chatId/',
    operationId: 'listMessages',
    role: 'agent',
    summary:
      "A chat's history, oldest first: its messages (`kind: message`, with the rating of agent replies), the team's private notes (`kind: note`), the agent's handoff summaries (`kind: summary`) and the agent's action runs (`kind: action`, for the team only)",
    tags: ['Inbox'],
    schema: {
      params: ChatParams,
      querystring: object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200, description: 'the most recent N items' })) }),
      response: { 200: object({ messages: Type.Array(Type.Union([InboxMessage, InboxNote, InboxSummary, InboxAction])) }), ...ConsoleErrors },
    },
  }),
  sendTeamReply: route({
    method: 'POST',
    url: '/chat/messages/:chatId/',
    operationId: 'sendTeamReply',
    role: 'agent',
    summary: 'Reply as the team: delivered to the customer and sent to the webhook as new_messages (role assistant)',
    tags: ['Inbox'],
    schema: {
      params: ChatParams,
      body: object({ text: Type.String({ minLength: 1, maxLength: MESSAGE_TEXT_MAX }) }),
      response: { 201: InboxMessage, ...ConsoleErrors },
    },
  }),
  pauseChat: route({
    method: 'POST',
    url: '/chat/pause-chat/:chatId/',
    operationId: 'pauseChat',
    role: 'agent',
    summary: 'Pause the agent in a chat',
    tags: ['Inbox'],
    schema: { params: ChatParams, response: { 200: object({ id: Type.String(), paused: Type.Boolean() }), ...ConsoleErrors } },
  }),
  resumeChat: route({
    method: 'POST',
    url: '/chat/resume-chat/:chatId/',
    operationId: 'resumeChat',
    role: 'agent',
    summary: 'Let the agent answer in a chat again',
    tags: ['Inbox'],
    schema: { params: ChatParams, response: { 200: object({ id: Type.String(), paused: Type.Boolean() }), ...ConsoleErrors } },
  }),
  setChatStatus: route({
    method: 'POST',
    url: '/chat/status/:chatId/',
    operationId: 'setChatStatus',
    role: 'agent',
    summary: "Set the agent's task done or not done (a real change emits dialog_status_changed, source manual)",
    tags: ['Inbox'],
    schema: {
      params: ChatParams,
      body: object({ status: TaskStatus }),
      response: { 200: object({ id: Type.String(), status: TaskStatus }), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
    },
  }),
  getInboxChat: route({
    method: 'GET',
    url: '/chat/info/:chatId/',
    operationId: 'getInboxChat',
    role: 'agent',
    summary: 'One chat with its tags and ban state',
    tags: ['Inbox'],
    schema: { params: ChatParams, response: { 200: InboxChat, ...ConsoleErrors } },
  }),
  getChatCustomer: route({
    method: 'GET',
    url: '/chat/customer/:chatId/',
    operationId: 'getChatCustomer',
    role: 'agent',
    summary: "The customer card's extras: the widget's host page and the customer's other chats (at most 10, newest first)",
    tags: ['Inbox'],
    schema: { params: ChatParams, response: { 200: ChatCustomer, ...ConsoleErrors } },
  }),
  getChatSuggestions: route({
    method: 'GET',
    url: '/chat/suggestions/:chatId/',
    operationId: 'getChatSuggestions',
    role: 'agent',
    summary:
      "Replies to suggest for the chat's last customer message: at most 3 knowledge entries' answers, document passages and saved replies ranked by the agent's retrieval, then a draft of the channel's model when its engine is openai-compatible",
    tags: ['Inbox'],
    schema: { params: ChatParams, response: { 200: object({ suggestions: Type.Array(Suggestion) }), ...ConsoleErrors } },
  }),
  readInboxChat: chatAction('readInboxChat', '/chat/read/:chatId/', 'Mark all messages of a chat read (as the public read)'),
  unreadInboxChat: chatAction('unreadInboxChat', '/chat/unread/:chatId/', 'Flag a chat unread (as the public unread)'),
  banInboxChat: chatAction('banInboxChat', '/chat/ban/:chatId/', "Ban the chat's customer (as the public ban; banning twice is no error)"),
  unbanInboxChat: chatAction('unbanInboxChat', '/chat/unban/:chatId/', "Unban the chat's customer"),
  addInboxChatTag: route({
    method: 'POST',
    url: '/chat/tags/:chatId/',
    operationId: 'addInboxChatTag',
    role: 'agent',
    summary: 'Tag a chat (the tag is created when the account has none of that name)',
    tags: ['Inbox'],
    schema: { params: ChatParams, body: object({ name: InboxTagName }), response: { 200: InboxChat, ...ConsoleErrors } },
  }),
  removeInboxChatTag: route({
    method: 'DELETE',
    url: '/chat/tags/:chatId/:name/',
    operationId: 'removeInboxChatTag',
    role: 'agent',
    summary: 'Remove a tag from a chat (the tag stays in the account)',
    tags: ['Inbox'],
    schema: { params: object({ ...ChatParams.properties, name: InboxTagName }), response: { 200: InboxChat, ...ConsoleErrors } },
  }),
  addNote: route({
    method: 'POST',
    url: '/chat/notes/:chatId/',
    operationId: 'addNote',
    role: 'agent',
    summary: "Add a private note to a chat's history: never sent to the customer, the webhook, the event feed, the public API or a CRM",
    tags: ['Inbox'],
    schema: {
      params: ChatParams,
      body: object({ text: Type.String({ minLength: 1, maxLength: NOTE_TEXT_MAX }) }),
      response: { 201: Note, ...ConsoleErrors },
    },
  }),
  assignChat: route({
    method: 'POST',
    url: '/chat/assign/:chatId/',
    operationId: 'assignChat',
    role: 'agent',
    summary: 'Assign a chat to a member of the account (`memberId: null` unassigns it); open Inboxes see it at once',
    tags: ['Inbox'],
    schema: {
      params: ChatParams,
      body: object({
        memberId: nullable(Type.String({ minLength: 1, maxLength: 200, description: 'an active member of the account; null: nobody' })),
      }),
      response: { 200: InboxChat, ...ConsoleErrors },
    },
  }),
  markAnswerCorrect: route({
    method: 'POST',
    url: '/chat/answer/:messageId/correct/',
    operationId: 'markAnswerCorrect',
    role: 'agent',
    summary: 'Mark an agent reply correct (as the public like)',
    tags: ['Inbox'],
    schema: { params: MessageParams, response: { 200: object({ id: Type.String(), rating: stringEnum(['liked', 'disliked'] as const) }), ...ConsoleErrors } },
  }),
  correctAnswer: route({
    method: 'POST',
    url: '/chat/answer/:messageId/correction/',
    operationId: 'correctAnswer',
    role: 'agent',
    summary: "Correct an agent reply: the customer's question and this answer go to the channel's knowledge base (as the public dislike)",
    tags: ['Inbox'],
    schema: {
      params: MessageParams,
      body: object({ text: Type.String({ minLength: 1, maxLength: MESSAGE_TEXT_MAX }) }),
      response: { 200: object({ id: Type.String(), rating: stringEnum(['liked', 'disliked'] as const) }), ...ConsoleErrors },
    },
  }),
} as const;
