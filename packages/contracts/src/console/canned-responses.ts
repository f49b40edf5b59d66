// Saved replies of an account (issue #25): typed in the Inbox's reply box as `/shortCode`.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { MESSAGE_TEXT_MAX } from '../public/messages.ts';
import { route } from '../route.ts';
import { object } from '../schema.ts';
import { ConsoleErrors } from './common.ts';

export const SHORT_CODE_PATTERN = '^[A-Za-z0-9_-]{1,50}$';

export const CannedResponse = object({ id: Type.String(), shortCode: Type.String(), text: Type.String() });
export type CannedResponse = Static<typeof CannedResponse>;

const CannedResponseBody = object({
  shortCode: Type.String({ pattern: SHORT_CODE_PATTERN, description: 'letters, digits, `_` and `-`, up to 50; typed after `/`' }),
  text: Type.String({ minLength: 1, maxLength: MESSAGE_TEXT_MAX }),
});
const CannedResponseParams = object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const cannedResponseRoutes = {
  listCannedResponses: route({
    method: 'GET',
    url: '/canned-responses/',
    operationId: 'listCannedResponses',
    role: 'agent',
    summary: 'The saved replies of the account, by short code',
    tags: ['Saved replies'],
    schema: { response: { 200: object({ cannedResponses: Type.Array(CannedResponse) }), 401: ErrorBody } },
  }),
  createCannedResponse: route({
    method: 'POST',
    url: '/canned-responses/',
    operationId: 'createCannedResponse',
    role: 'agent',
    summary: 'Save a reply (409 when the account has one with this short code)',
    tags: ['Saved replies'],
    schema: { body: CannedResponseBody, response: { 201: CannedResponse, 409: ErrorBody, ...ConsoleErrors } },
  }),
  updateCannedResponse: route({
    method: 'PUT',
    url: '/canned-responses/:id/',
    operationId: 'updateCannedResponse',
    role: 'agent',
    summary: 'Change a saved reply (409 when another one has this short code)',
    tags: ['Saved replies'],
    schema: { params: CannedResponseParams, body: CannedResponseBody, response: { 200: CannedResponse, 409: ErrorBody, ...ConsoleErrors } },
  }),
  deleteCannedResponse: route({
    method: 'DELETE',
    url: '/canned-responses/:id/',
    operationId: 'deleteCannedResponse',
    role: 'agent',
    summary: 'Delete a saved reply',
    tags: ['Saved replies'],
    schema: { params: CannedResponseParams, response: { 200: object({ success: Type.Literal(true) }), ...ConsoleErrors } },
  }),
} as const;
