import { Type } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { object } from '../schema.ts';
import { AuthErrors } from './chats.ts';
import { MESSAGE_TEXT_MAX } from './messages.ts';

const MessageId = Type.String({ minLength: 1, maxLength: 200, description: 'messages[].id of an agent reply' });

export const feedbackRoutes = {
  likeMessage: route({
    method: 'GET',
    url: '/chats/chat/like',
    operationId: 'likeMessage',
    summary: 'Mark an agent reply correct',
    tags: ['Answer feedback'],
    scope: 'feedback',
    schema: {
      querystring: object({ messageId: MessageId }),
      response: { 200: object({ message: Type.Literal('Message liked') }), 400: ErrorBody, ...AuthErrors },
    },
  }),
  dislikeMessage: route({
    method: 'POST',
    url: '/chats/chat/dislike',
    operationId: 'dislikeMessage',
    summary: "Mark an agent reply incorrect and save the corrected answer to the channel's knowledge base",
    tags: ['Answer feedback'],
    scope: 'feedback',
    schema: {
      querystring: object({}),
      body: object({
        messageId: MessageId,
        textEdit: Type.String({ minLength: 1, maxLength: MESSAGE_TEXT_MAX, description: 'the correct answer' }),
      }),
      response: { 200: object({ message: Type.Literal('Message disliked') }), 400: ErrorBody, ...AuthErrors },
    },
  }),
} as const;
