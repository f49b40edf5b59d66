// The Inbox (DESIGN.md, Console API): how a team member acts on the same chats as the public API.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { Chat, ListChatsQuery } from '../public/chats.ts';
import { MESSAGE_TEXT_MAX } from '../public/messages.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum } from '../schema.ts';
import { TaskStatus, WebhookMessage } from '../webhooks/events.ts';
import { ConsoleErrors } from './common.ts';

/** A message as the Inbox shows it: the webhook message object plus the rating of agent replies. */
export const InboxMessage = object({
  ...WebhookMessage.properties,
  rating: nullable(stringEnum(['liked', 'disliked'] as const)),
});
export type InboxMessage = Static<typeof InboxMessage>;

const ChatParams = object({ chatId: Type.String({ minLength: 1, maxLength: 200 }) });

export const inboxRoutes = {
  listInboxChats: route({
    method: 'GET',
    url: '/chat/all-chats/',
    operationId: 'listInboxChats',
    summary: 'Chats of the account, newest activity first (the filters of the public list)',
    tags: ['Inbox'],
    schema: { querystring: ListChatsQuery, response: { 200: object({ chats: Type.Array(Chat), count: Type.Integer() }), ...ConsoleErrors } },
  }),
  listMessages: route({
    method: 'GET',
    url: '/chat/messages/:chatId/',
    operationId: 'listMessages',
    summary: "A chat's messages, oldest first, with the rating of agent replies",
    tags: ['Inbox'],
    schema: {
      params: ChatParams,
      querystring: object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200, description: 'the most recent N' })) }),
      response: { 200: object({ messages: Type.Array(InboxMessage) }), ...ConsoleErrors },
    },
  }),
  sendTeamReply: route({
    method: 'POST',
    url: '/chat/messages/:chatId/',
    operationId: 'sendTeamReply',
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
    summary: 'Pause the agent in a chat',
    tags: ['Inbox'],
    schema: { params: ChatParams, response: { 200: object({ id: Type.String(), paused: Type.Boolean() }), ...ConsoleErrors } },
  }),
  resumeChat: route({
    method: 'POST',
    url: '/chat/resume-chat/:chatId/',
    operationId: 'resumeChat',
    summary: 'Let the agent answer in a chat again',
    tags: ['Inbox'],
    schema: { params: ChatParams, response: { 200: object({ id: Type.String(), paused: Type.Boolean() }), ...ConsoleErrors } },
  }),
  setChatStatus: route({
    method: 'POST',
    url: '/chat/status/:chatId/',
    operationId: 'setChatStatus',
    summary: "Set the agent's task done or not done (a real change emits dialog_status_changed, source manual)",
    tags: ['Inbox'],
    schema: {
      params: ChatParams,
      body: object({ status: TaskStatus }),
      response: { 200: object({ id: Type.String(), status: TaskStatus }), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
    },
  }),
} as const;
