import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { EmptyBody, object, stringEnum } from '../schema.ts';
import { AuthErrors } from './chats.ts';

export const MESSAGE_TEXT_MAX = 10_000;
export const MAX_FILES = 10;
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Body of send-message-universal (spec, Endpoints → Messages). */
export const SendMessageBody = object({
  channel: stringEnum(['custom'] as const, { description: 'always `custom`' }),
  channelId: Type.String({ minLength: 4, maxLength: 200, pattern: '^cc:', description: 'API channel ID, starts with `cc:`' }),
  externalChatId: Type.String({ minLength: 1, maxLength: 256, description: "caller's conversation ID" }),
  role: stringEnum(['user', 'assistant'] as const),
  text: Type.String({ maxLength: MESSAGE_TEXT_MAX, description: 'required even with files' }),
  senderName: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'default `Unknown visitor`' })),
  messageId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "caller's message ID" })),
});
export type SendMessageBody = Static<typeof SendMessageBody>;

export const messageRoutes = {
  sendMessageUniversal: route({
    method: 'POST',
    url: '/chats/chat/send-message-universal',
    operationId: 'sendMessageUniversal',
    summary: 'Add a message to a chat of an API channel',
    description:
      'JSON, or `multipart/form-data` with up to 10 `files` of 10 MB each. 201 does not guarantee an agent answer.',
    tags: ['Messages'],
    scope: 'messages',
    consumes: ['multipart/form-data'],
    schema: {
      querystring: object({}),
      body: SendMessageBody,
      response: { 201: EmptyBody, 400: ErrorBody, 413: ErrorBody, ...AuthErrors },
    },
  }),
} as const;
