import { Type, type Static } from 'typebox';
import { AuthErrorBody, ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum, Timestamp } from '../schema.ts';
import { CHANNEL_KINDS } from './channel-kinds.ts';

const ChatId = Type.String({ minLength: 1, maxLength: 200, description: 'Chat ID' });
const UniqueId = Type.String({ minLength: 1, maxLength: 600, description: 'Chat key' });

export const UserTag = object({ tags: object({ id: Type.String(), name: Type.String() }) });

/** Chat, an item of the chat list (spec, Resources → Chat). */
export const Chat = object({
  id: Type.String({ description: 'Chat ID' }),
  uniqueId: Type.String({ description: 'Chat key, used by ban and unban' }),
  channelName: stringEnum(CHANNEL_KINDS, { description: 'Channel kind' }),
  channelId: Type.String(),
  channelSettingsName: nullable(Type.String()),
  chatId: Type.String({ description: "Chat ID in the messenger, or the sender's externalChatId" }),
  dialogName: Type.String(),
  text: Type.String({ description: 'Text of the last message' }),
  lastMessageDate: Timestamp,
  unreadCount: Type.Integer({ minimum: 0 }),
  customUnread: Type.Boolean(),
  isTriggered: Type.Boolean({ description: "The agent's task is done" }),
  paused: Type.Boolean(),
  isGroup: Type.Boolean(),
  email: nullable(Type.String()),
  photo_100: nullable(Type.String()),
  userTags: Type.Array(UserTag),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Chat = Static<typeof Chat>;

const AuthErrors = {
  401: AuthErrorBody,
  402: AuthErrorBody,
  403: AuthErrorBody,
  404: AuthErrorBody,
  429: AuthErrorBody,
} as const;

export const ListChatsQuery = object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 500 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, default: 0 })),
  channelName: Type.Optional(stringEnum(CHANNEL_KINDS)),
  channelId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  tag: Type.Optional(
    Type.String({ minLength: 1, maxLength: 2000, description: 'Tag name; several names separated by commas' }),
  ),
  complitedTask: Type.Optional(Type.Boolean({ description: '`true` selects only chats whose task is done' })),
});
export type ListChatsQuery = Static<typeof ListChatsQuery>;

export const ChatIdQuery = object({ id: ChatId });
export const UniqueIdQuery = object({ uniqueId: UniqueId });
const ChatCommandResult = object({ id: Type.String(), success: Type.Literal(true) });
const Success = object({ success: Type.Literal(true) });

const chatCommand = (operationId: string, path: string, summary: string) =>
  ({
    method: 'GET',
    url: `/chats/chat/${path}`,
    operationId,
    summary,
    tags: ['Chats'],
    scope: 'chats:write',
    schema: { querystring: ChatIdQuery, response: { 200: ChatCommandResult, 400: ErrorBody, ...AuthErrors } },
  }) as const;

/** done/undone: 202 at once, processed in background; 503 when the command could not be queued. */
const backgroundChatCommand = (operationId: string, path: string, summary: string) =>
  ({
    method: 'GET',
    url: `/chats/chat/${path}`,
    operationId,
    summary,
    tags: ['Chats'],
    scope: 'chats:write',
    schema: {
      querystring: ChatIdQuery,
      response: { 202: ChatCommandResult, 400: ErrorBody, 503: ErrorBody, ...AuthErrors },
    },
  }) as const;

export const chatRoutes = {
  listChats: route({
    method: 'GET',
    url: '/chats/chat',
    operationId: 'listChats',
    summary: "List the account's chats, newest activity first",
    tags: ['Chats'],
    scope: 'chats:read',
    schema: {
      querystring: ListChatsQuery,
      response: { 200: object({ chats: Type.Array(Chat), count: Type.Integer() }), 400: ErrorBody, ...AuthErrors },
    },
  }),
  readChat: route(chatCommand('readChat', 'read', 'Mark all messages of a chat read')),
  unreadChat: route(chatCommand('unreadChat', 'unread', 'Flag a chat unread')),
  doneChat: route(backgroundChatCommand('doneChat', 'done', "Set the agent's task done (processed in background)")),
  undoneChat: route(
    backgroundChatCommand('undoneChat', 'undone', "Set the agent's task not done (processed in background)"),
  ),
  banChat: route({
    method: 'GET',
    url: '/chats/chat/ban',
    operationId: 'banChat',
    summary: 'Ban a chat: new messages from that customer are ignored',
    tags: ['Chats'],
    scope: 'chats:write',
    schema: { querystring: UniqueIdQuery, response: { 200: Success, 400: ErrorBody, ...AuthErrors } },
  }),
  unbanChat: route({
    method: 'GET',
    url: '/chats/chat/unban',
    operationId: 'unbanChat',
    summary: 'Unban a chat',
    tags: ['Chats'],
    scope: 'chats:write',
    schema: { querystring: UniqueIdQuery, response: { 200: Success, 400: ErrorBody, ...AuthErrors } },
  }),
} as const;

export { AuthErrors };
