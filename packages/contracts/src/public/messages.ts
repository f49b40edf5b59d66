import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { DOCUMENTED_DEFAULT, EmptyBody, object, stringEnum } from '../schema.ts';
import { AuthErrors } from './chats.ts';
import { DEFAULT_SENDER_NAME } from './sender.ts';

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
  senderName: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: `becomes the chat name in the Inbox; a customer message without it is from \`${DEFAULT_SENDER_NAME}\``,
      [DOCUMENTED_DEFAULT]: DEFAULT_SENDER_NAME,
    }),
  ),
  messageId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "caller's message ID" })),
});
export type SendMessageBody = Static<typeof SendMessageBody>;

/**
 * The files send-message-universal accepts (spec, Messages → Accepted files), by the content type the server
 * detects from the bytes (the name and the declared type are not trusted). Anything else is a 400.
 */
export const ACCEPTED_FILE_TYPES = {
  image: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'],
  audio: ['audio/mpeg', 'audio/wav'],
  other: [
    'application/pdf',
    'text/plain',
    'application/msword',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.ms-excel',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'video/mp4',
    'video/x-msvideo',
  ],
} as const;

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
    files: {
      maxFiles: MAX_FILES,
      contentTypes: Object.values(ACCEPTED_FILE_TYPES).flat(),
      description:
        `Up to ${MAX_FILES} files of ${MAX_FILE_BYTES / 1024 / 1024} MB each (413 above). Accepted, by the type detected ` +
        'from the bytes: images (JPEG, PNG, GIF, WebP: the agent considers them), audio (MP3, WAV: a voice message), ' +
        'PDF, TXT, DOC, DOCX, XLS, XLSX, MP4, AVI (kept, not processed by the agent); any other type is a 400.',
    },
    schema: {
      querystring: object({}),
      body: SendMessageBody,
      response: { 201: EmptyBody, 400: ErrorBody, 413: ErrorBody, ...AuthErrors },
    },
  }),
} as const;
