// Security and privacy (issue #45): a customer's data exported as a zip, or erased, by e-mail or by a chat.
import { Type } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { object } from '../schema.ts';

/** Who the customer is: their e-mail (every chat of the account with it, on any channel) or one of their chats. */
const CustomerQuery = object({
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: "the customer's e-mail: every chat of the account with it, on any channel" })),
  chatId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "one of the customer's chats (its console id): that chat and every chat with its e-mail" }),
  ),
});

const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody } as const;

export const privacyRoutes = {
  exportCustomerData: route({
    method: 'GET',
    url: '/customers/export',
    operationId: 'exportCustomerData',
    role: 'admin',
    summary: "A customer's data as a zip: `customer.json` (chats, messages, notes, ratings) and `files/` (their attachments)",
    description: 'Exactly one of `email` and `chatId` (else 400). 404 `Customer not found` when the account has no chat of theirs.',
    tags: ['Privacy'],
    schema: { querystring: CustomerQuery, response: { 200: Type.String({ description: 'application/zip' }), ...Errors } },
  }),
  eraseCustomerData: route({
    method: 'POST',
    url: '/customers/erase',
    operationId: 'eraseCustomerData',
    role: 'admin',
    summary:
      "Erase a customer: every message of their chats (theirs, the agent's, the team's, notes) loses its text and files; the chats keep no name, e-mail or identifier; reports' counts stay",
    description:
      'Exactly one of `email` and `chatId` (else 400). 404 `Customer not found` when the account has no chat of theirs. Nothing is sent to webhooks: ' +
      'the chats\' events (and their pending deliveries) are deleted with the texts.',
    tags: ['Privacy'],
    schema: {
      body: CustomerQuery,
      response: {
        200: object({
          chats: Type.Integer({ description: 'chats erased' }),
          messages: Type.Integer({ description: 'messages and notes whose text was erased' }),
          files: Type.Integer({ description: 'files deleted from the file store' }),
        }),
        ...Errors,
      },
    },
  }),
} as const;
