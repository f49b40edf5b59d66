import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { object, stringEnum, Timestamp } from '../schema.ts';
import { SCOPES } from '../public/scopes.ts';

const Uuid = Type.String({ format: 'uuid' });
const Scopes = Type.Array(stringEnum(SCOPES), { minItems: 1, uniqueItems: true });
const AdminErrors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody } as const;

export const EMAIL_MAX = 254;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

export const CreateAccountBody = object({
  email: Type.String({ format: 'email', maxLength: EMAIL_MAX }),
  password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "the owner's name (default: the e-mail)" })),
});
export type CreateAccountBody = Static<typeof CreateAccountBody>;

export const ApiKeyInfo = object({
  id: Type.String(),
  prefix: Type.String({ description: 'First characters of the key, for display' }),
  scopes: Scopes,
  active: Type.Boolean(),
  createdAt: Timestamp,
});

/** A member of an account, as the operator sees it. */
export const AdminMember = object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: stringEnum(['owner', 'admin', 'agent'] as const),
  status: stringEnum(['active', 'invited'] as const),
});

/** Operator API (`/admin/v1`, bearer ADMIN_TOKEN): the provider's support issues keys with it. */
export const adminRoutes = {
  createAccount: route({
    method: 'POST',
    url: '/accounts',
    operationId: 'createAccount',
    summary: 'Create an account',
    tags: ['Accounts'],
    schema: {
      body: CreateAccountBody,
      response: { 201: object({ id: Type.String(), email: Type.String() }), 409: ErrorBody, ...AdminErrors },
    },
  }),
  createApiKey: route({
    method: 'POST',
    url: '/accounts/:accountId/api-keys',
    operationId: 'createApiKey',
    summary: 'Issue an API key; the key is shown only in this response',
    description: 'The body may be omitted: the key then gets every scope.',
    tags: ['API keys'],
    bodyOptional: true,
    schema: {
      params: object({ accountId: Uuid }),
      body: object({ scopes: Type.Optional(Scopes) }),
      response: { 201: object({ id: Type.String(), key: Type.String(), scopes: Scopes }), ...AdminErrors },
    },
  }),
  listApiKeys: route({
    method: 'GET',
    url: '/accounts/:accountId/api-keys',
    operationId: 'listApiKeys',
    summary: "List an account's API keys (prefixes only)",
    tags: ['API keys'],
    schema: {
      params: object({ accountId: Uuid }),
      response: { 200: object({ keys: Type.Array(ApiKeyInfo) }), ...AdminErrors },
    },
  }),
  deactivateApiKey: route({
    method: 'POST',
    url: '/api-keys/:keyId/deactivate',
    operationId: 'deactivateApiKey',
    summary: 'Deactivate an API key',
    tags: ['API keys'],
    schema: {
      params: object({ keyId: Uuid }),
      response: { 200: object({ id: Type.String(), active: Type.Literal(false) }), ...AdminErrors },
    },
  }),
  setSubscription: route({
    method: 'PUT',
    url: '/accounts/:accountId/subscription',
    operationId: 'setSubscription',
    summary: 'Start or stop the subscription; while stopped the public API answers 402',
    tags: ['Accounts'],
    schema: {
      params: object({ accountId: Uuid }),
      body: object({ active: Type.Boolean() }),
      response: { 200: object({ active: Type.Boolean() }), ...AdminErrors },
    },
  }),
  listAccountMembers: route({
    method: 'GET',
    url: '/accounts/:accountId/members',
    operationId: 'listAccountMembers',
    summary: "List an account's members (its owner, admins and agents; invited ones too)",
    tags: ['Accounts'],
    schema: {
      params: object({ accountId: Uuid }),
      response: { 200: object({ members: Type.Array(AdminMember) }), ...AdminErrors },
    },
  }),
  removeAccountMember: route({
    method: 'DELETE',
    url: '/members/:memberId',
    operationId: 'removeAccountMember',
    summary: 'Remove a member: every token and session of theirs stops working at once (the owner cannot be removed: 400)',
    tags: ['Accounts'],
    schema: {
      params: object({ memberId: Uuid }),
      response: { 200: object({ success: Type.Literal(true) }), ...AdminErrors },
    },
  }),
  createPasswordReset: route({
    method: 'POST',
    url: '/password-resets',
    operationId: 'createPasswordReset',
    summary: "A one-time link to set a member's password, `{PUBLIC_URL}/reset-password/<token>` valid 1 hour, for the operator to pass on",
    description: 'For a server without SMTP_URL (or a member whose e-mail does not arrive). A newer link replaces an older one. 404 when no active member has the e-mail.',
    tags: ['Accounts'],
    schema: {
      body: object({ email: Type.String({ minLength: 1, maxLength: EMAIL_MAX }) }),
      response: {
        201: object({
          memberId: Type.String(),
          email: Type.String(),
          resetUrl: Type.String({ description: '`{PUBLIC_URL}/reset-password/<token>`: works once, until expiresAt' }),
          expiresAt: Timestamp,
        }),
        ...AdminErrors,
      },
    },
  }),
  backup: route({
    method: 'POST',
    url: '/backup',
    operationId: 'backup',
    summary: "Write a consistent backup of the embedded database and DATA_DIR's files to a new file on the server's machine",
    description:
      'Embedded (PGlite) database only; with a PostgreSQL server the answer is 400 (use pg_dump). The file must not exist; ' +
      'the archive holds the secrets of DATA_DIR and is written readable by its owner only.',
    tags: ['Backups'],
    schema: {
      body: object({ file: Type.String({ minLength: 1, maxLength: 4096, description: 'Absolute path on the server' }) }),
      response: { 200: object({ file: Type.String(), bytes: Type.Integer() }), ...AdminErrors },
    },
  }),
} as const;
