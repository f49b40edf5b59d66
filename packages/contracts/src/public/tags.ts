import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { object } from '../schema.ts';
import { AuthErrors } from './chats.ts';

const TagName = Type.String({ minLength: 1, maxLength: 100, description: 'Tag name' });
const ChatId = Type.String({ minLength: 1, maxLength: 200, description: 'Chat ID' });

export const Tag = object({
  id: Type.String(),
  name: Type.String(),
  chatsWithTags: Type.Array(Type.String(), { description: 'IDs of the chats that have the tag' }),
});
export type Tag = Static<typeof Tag>;

const TagNameResult = object({ tag: Type.String(), success: Type.Literal(true) });
const TagIdResult = object({ id: Type.String(), success: Type.Literal(true) });

export const tagRoutes = {
  listTags: route({
    method: 'GET',
    url: '/chats/chat/tags',
    operationId: 'listTags',
    summary: 'List tags, most used first',
    tags: ['Tags'],
    scope: 'tags',
    schema: {
      querystring: object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
        offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, default: 0 })),
      }),
      response: { 200: object({ tags: Type.Array(Tag) }), 400: ErrorBody, ...AuthErrors },
    },
  }),
  createTag: route({
    method: 'GET',
    url: '/chats/chat/tags/create',
    operationId: 'createTag',
    summary: 'Create a tag attached to no chat',
    tags: ['Tags'],
    scope: 'tags',
    schema: { querystring: object({ tag: TagName }), response: { 200: TagNameResult, 400: ErrorBody, ...AuthErrors } },
  }),
  tagChat: route({
    method: 'GET',
    url: '/chats/chat/tags/tag-chat',
    operationId: 'tagChat',
    summary: 'Attach a tag to a chat (the tag is created when missing)',
    tags: ['Tags'],
    scope: 'tags',
    schema: {
      querystring: object({ id: ChatId, tag: TagName }),
      response: { 200: TagIdResult, 400: ErrorBody, ...AuthErrors },
    },
  }),
  removeTagFromChat: route({
    method: 'DELETE',
    url: '/chats/chat/tags/remove-from-chat',
    operationId: 'removeTagFromChat',
    summary: 'Detach a tag from a chat; the tag stays in the account',
    tags: ['Tags'],
    scope: 'tags',
    schema: {
      querystring: object({ id: ChatId, tag: TagName }),
      response: { 200: TagIdResult, 400: ErrorBody, ...AuthErrors },
    },
  }),
  removeTag: route({
    method: 'DELETE',
    url: '/chats/chat/tags/remove',
    operationId: 'removeTag',
    summary: 'Delete a tag from the account and from all chats',
    tags: ['Tags'],
    scope: 'tags',
    schema: { querystring: object({ tag: TagName }), response: { 200: TagNameResult, 400: ErrorBody, ...AuthErrors } },
  }),
} as const;
