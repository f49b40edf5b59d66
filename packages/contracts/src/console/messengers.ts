// Messenger connectors in the console (docs/architecture.md, Messenger connectors): checking a Telegram bot token before
// connecting, and the replies a messenger refused for good or that ran out of retries.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { MESSENGER_KINDS } from '../public/channel-kinds.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum, Timestamp } from '../schema.ts';
import { ConsoleErrors } from './common.ts';

export const MessengerSendFailure = object({
  id: Type.String(),
  channelId: Type.String(),
  channelType: stringEnum(MESSENGER_KINDS),
  chatId: Type.String(),
  messageId: Type.String({ description: 'the reply that did not reach the customer (or only in part)' }),
  error: Type.String({ description: "the messenger's description (a blocked bot, a closed 24-hour window…) or the last transient error" }),
  attempts: Type.Integer({ minimum: 0 }),
  partsSent: Type.Integer({ minimum: 0, description: 'parts of a long text that did go out before the failure' }),
  createdAt: Timestamp,
  failedAt: Timestamp,
});
export type MessengerSendFailure = Static<typeof MessengerSendFailure>;

export const messengerRoutes = {
  validateTelegramToken: route({
    method: 'POST',
    url: '/connect/validate-tg-token/',
    operationId: 'validateTelegramToken',
    role: 'admin',
    summary: "Check a Telegram bot token with Telegram's getMe",
    description: '`valid` false when Telegram does not know the token; 502 when Telegram cannot be reached.',
    tags: ['Channels'],
    schema: {
      body: object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
      response: {
        200: object({
          valid: Type.Boolean(),
          bot: Type.Optional(object({ id: Type.Integer(), username: nullable(Type.String()) })),
        }),
        400: ErrorBody,
        401: ErrorBody,
        502: ErrorBody,
      },
    },
  }),
  listMessengerFailures: route({
    method: 'GET',
    url: '/channels/failures/',
    operationId: 'listMessengerFailures',
    role: 'admin',
    summary: 'Replies that could not be sent to a messenger, newest first (never retried again)',
    tags: ['Channels'],
    schema: {
      querystring: object({
        channelId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
      }),
      response: { 200: object({ failures: Type.Array(MessengerSendFailure) }), ...ConsoleErrors },
    },
  }),
} as const;
