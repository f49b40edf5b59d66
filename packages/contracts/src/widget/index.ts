// Visitor API of the chat widget (`/widget/v1`, docs/architecture.md, Chat widget): what the frame served from Parley's
// origin calls. A visitor is known by a token the server signs (`POST /session`), sent as `Authorization: Bearer`.
// The live stream is a WebSocket at `/widget/v1/live` (described in the document's info: OpenAPI 3.0 has no
// WebSocket operations).
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { MAX_FILE_BYTES, MAX_FILES } from '../public/messages.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum, Timestamp } from '../schema.ts';

/** How the frame and its launcher look (from the channel's settings). */
export const WidgetLook = object({
  title: Type.String(),
  color: Type.String({ description: '#rrggbb' }),
  position: stringEnum(['right', 'left'] as const),
  launcherText: Type.String(),
  greeting: Type.String({ description: 'shown before the first message; empty: none' }),
});
export type WidgetLook = Static<typeof WidgetLook>;

export const VisitorIdentity = object({
  identifier: Type.String({ minLength: 1, maxLength: 200, description: "the customer's id in the site's own system" }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  email: Type.Optional(Type.String({ minLength: 3, maxLength: 320, format: 'email' })),
  identifierHash: Type.Optional(
    Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'HMAC-SHA256 of identifier with the channel identity secret, hex' }),
  ),
});
export type VisitorIdentity = Static<typeof VisitorIdentity>;

/** The longest host page URL a session records. */
export const WIDGET_PAGE_MAX = 2048;

export const StartSessionBody = object({
  channelId: Type.String({ minLength: 1, maxLength: 200 }),
  origin: Type.String({ minLength: 1, maxLength: 300, description: 'origin of the page that embeds the frame' }),
  page: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: WIDGET_PAGE_MAX,
      pattern: '^https?://',
      description: "the host page's URL (the team's customer card shows it): kept as origin and path only, and only on `origin`",
    }),
  ),
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'the visitor token kept from an earlier visit' })),
  identity: Type.Optional(VisitorIdentity),
});
export type StartSessionBody = Static<typeof StartSessionBody>;

export const WidgetLimits = object({
  maxMessageLength: Type.Integer(),
  maxFiles: Type.Integer(),
  maxFileBytes: Type.Integer(),
  messagesPerMinute: Type.Integer(),
});

const PreChatFieldRule = stringEnum(['required', 'optional'] as const);

export const WidgetSession = object({
  token: Type.String({ description: "keep it (the loader keeps it in the host page's storage) and send it as `Authorization: Bearer`" }),
  visitorId: Type.String({ description: "the chat's `chatId`" }),
  verified: Type.Boolean({ description: 'the identity was verified with identifierHash' }),
  name: nullable(Type.String()),
  email: nullable(Type.String()),
  look: WidgetLook,
  limits: WidgetLimits,
  preChatForm: nullable(
    object(
      { name: PreChatFieldRule, email: PreChatFieldRule },
      { description: 'the form to ask before the first message (`PUT /visitor`); null: none' },
    ),
  ),
  away: nullable(
    object(
      { backAt: nullable(Type.String({ format: 'date-time', description: "when the channel's working hours next begin; null: no hours ahead" })) },
      { description: "outside the channel's working hours (messages are still taken); null: within them, or no hours set" },
    ),
  ),
});
export type WidgetSession = Static<typeof WidgetSession>;

export const WidgetAttachment = object({
  name: Type.String(),
  url: Type.String(),
  contentType: Type.String(),
  fileSize: Type.Integer(),
});

/** A message as the visitor sees it: who wrote it, never a team member's address. */
export const WidgetMessage = object({
  id: Type.String(),
  role: stringEnum(['user', 'assistant'] as const),
  from: stringEnum(['visitor', 'agent', 'team'] as const),
  name: nullable(Type.String({ description: "who answered, as the visitor sees it: a team member's name; null for the agent, the visitor and an unnamed team reply" })),
  text: Type.String(),
  attachments: Type.Array(WidgetAttachment),
  choices: Type.Optional(
    Type.Array(Type.String(), {
      description:
        "an agent's clarifying choices: the options' labels, then the last line's (something else); the frame shows them as buttons that send the label",
    }),
  ),
  createdAt: Timestamp,
});
export type WidgetMessage = Static<typeof WidgetMessage>;

export const WidgetSendBody = object({
  text: Type.String({ maxLength: 10_000, description: "may be empty when files are attached; the channel's maxMessageLength applies" }),
});
export type WidgetSendBody = Static<typeof WidgetSendBody>;

/** The pre-chat form's answers: the visitor's name and e-mail, so the chats' name and e-mail. */
export const WidgetVisitorDetails = object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' })),
  email: Type.Optional(Type.String({ minLength: 3, maxLength: 320, format: 'email' })),
});
export type WidgetVisitorDetails = Static<typeof WidgetVisitorDetails>;

/** One of the visitor's conversations (each is a chat of the channel). */
export const WidgetConversation = object({
  id: Type.String({ description: "the chat's `chatId`; the first conversation's is the visitor id" }),
  createdAt: Timestamp,
  lastText: nullable(Type.String({ description: 'text of its last message; null before the first' })),
  lastMessageAt: nullable(Timestamp),
});
export type WidgetConversation = Static<typeof WidgetConversation>;

const ConversationQuery = Type.Optional(
  Type.String({ format: 'uuid', description: "one of the visitor's conversations; default: the newest" }),
);

const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

export const EmbedCheck = object({
  allowed: Type.Boolean(),
  origin: Type.Optional(Type.String({ description: 'the refused origin' })),
  message: Type.Optional(Type.String({ description: 'why, when refused' })),
});
export type EmbedCheck = Static<typeof EmbedCheck>;

export const widgetRoutes = {
  checkEmbed: route({
    method: 'GET',
    url: '/embed',
    operationId: 'checkEmbed',
    summary: 'Whether a page may show the widget',
    description:
      "Asked by the loader before it adds the frame: the page's origin (the Origin header, else the `origin` parameter) " +
      'against the channel\'s allowed origins. A refusal is recorded for the channel\'s page in the console. Readable from any origin.',
    tags: ['Visitor'],
    schema: {
      querystring: object({
        channel: Type.String({ minLength: 1, maxLength: 200 }),
        origin: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
      }),
      response: { 200: EmbedCheck, ...Errors },
    },
  }),
  startSession: route({
    method: 'POST',
    url: '/session',
    operationId: 'startSession',
    summary: 'Start or resume a visitor session',
    description:
      'Checks the embedding origin against the channel, verifies the identity when given (required when the channel ' +
      'says so: 403 and nothing stored otherwise) and returns a signed visitor token (the same visitor again when a ' +
      "valid token is given). No token is needed for this call. 429 when too many new visitors came from the caller's address.",
    tags: ['Visitor'],
    schema: { body: StartSessionBody, response: { 200: WidgetSession, ...Errors } },
  }),
  listMessages: route({
    method: 'GET',
    url: '/messages',
    operationId: 'listMessages',
    summary: "The visitor's conversation, oldest first",
    tags: ['Visitor'],
    schema: {
      querystring: object({
        conversation: ConversationQuery,
        after: Type.Optional(Type.String({ format: 'uuid', description: 'only messages after this one' })),
      }),
      response: { 200: object({ messages: Type.Array(WidgetMessage) }), ...Errors },
    },
  }),
  sendMessage: route({
    method: 'POST',
    url: '/messages',
    operationId: 'sendMessage',
    summary: 'Send a message as the visitor',
    description: `JSON, or \`multipart/form-data\` with up to ${MAX_FILES} \`files\` of ${MAX_FILE_BYTES / 1024 / 1024} MB each (the types send-message-universal accepts). \`message\` is null when the message was ignored.`,
    tags: ['Visitor'],
    consumes: ['multipart/form-data'],
    schema: {
      querystring: object({ conversation: ConversationQuery }),
      body: WidgetSendBody,
      response: { 201: object({ message: nullable(WidgetMessage) }), 413: ErrorBody, ...Errors },
    },
  }),
  listConversations: route({
    method: 'GET',
    url: '/conversations',
    operationId: 'listConversations',
    summary: "The visitor's conversations, oldest first",
    tags: ['Visitor'],
    schema: { response: { 200: object({ conversations: Type.Array(WidgetConversation) }), ...Errors } },
  }),
  newConversation: route({
    method: 'POST',
    url: '/conversations',
    operationId: 'newConversation',
    summary: 'Start a new conversation',
    description: 'Each conversation is a chat of its own. While the newest one has no message yet, it is returned instead of a new one.',
    tags: ['Visitor'],
    schema: { response: { 201: object({ conversation: WidgetConversation }), ...Errors } },
  }),
  rateConversation: route({
    method: 'POST',
    url: '/csat',
    operationId: 'rateConversation',
    summary: "Rate the conversation that ended (`How did we do?`): 1–5 and an optional comment, once",
    description:
      'The conversation is the one the live stream named in its `csat` frame (an ended conversation of this chat). 404 when there is no such ended conversation, 409 when it is rated already.',
    tags: ['Visitor'],
    schema: {
      querystring: object({ conversation: ConversationQuery }),
      body: object({
        conversationId: Type.String({ format: 'uuid', description: 'the `csat` frame\'s conversationId' }),
        rating: Type.Integer({ minimum: 1, maximum: 5 }),
        comment: Type.Optional(Type.String({ maxLength: 1000 })),
      }),
      response: { 200: object({ success: Type.Literal(true) }), 409: ErrorBody, ...Errors },
    },
  }),
  updateVisitor: route({
    method: 'PUT',
    url: '/visitor',
    operationId: 'updateVisitor',
    summary: "The visitor's name and e-mail (the pre-chat form)",
    description:
      "Sets the given fields on the visitor and on the chats of all their conversations (`dialogName`, `email`). 400 when the channel's pre-chat form requires a field that is still missing.",
    tags: ['Visitor'],
    schema: { body: WidgetVisitorDetails, response: { 200: object({ name: nullable(Type.String()), email: nullable(Type.String()) }), ...Errors } },
  }),
} as const;

/** Frames of the live WebSocket (`/widget/v1/live`), as JSON text. */
export type WidgetClientFrame = { type: 'auth'; token: string; conversation?: string; after?: string } | { type: 'ping' };
export type WidgetServerFrame =
  | { type: 'ready' }
  /** The agent started (true) or finished (false) preparing a reply in this conversation. */
  | { type: 'typing'; typing: boolean }
  | { type: 'message'; message: WidgetMessage }
  | { type: 'pong' }
  /** A conversation of this chat ended unrated: the frame asks `How did we do?` (POST /csat with this id). */
  | { type: 'csat'; conversationId: string }
  | { type: 'error'; message: string; statusCode: number };
