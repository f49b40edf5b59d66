// The audit log (issue #45, item 4): every change to the account's configuration and people, and its sign-ins, with
// who made it, when, from which address and the changed fields' before and after (secrets "••••"). Admins only.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { map, nullable, object, stringEnum, Timestamp } from '../schema.ts';

export const AUDIT_LIMIT_MAX = 100;
export const AUDIT_LIMIT_DEFAULT = 50;
export const AUDIT_ACTOR_KINDS = ['member', 'api_key', 'operator'] as const;

const AuditDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD (UTC day, included)' });

export const AuditEvent = object({
  id: Type.String(),
  at: Timestamp,
  actor: object({
    kind: stringEnum(AUDIT_ACTOR_KINDS),
    id: nullable(Type.String({ description: "the member's or API key's id; null for the operator" })),
    name: Type.String({ description: "the member's or API key's name when the change was made; `operator`" }),
  }),
  address: nullable(Type.String({ description: 'the IP address the request came from; null when there was none (the admin CLI)' })),
  kind: Type.String({ description: 'a stable dotted name, e.g. `channel.updated`, `member.role_changed`, `auth.login_failed`' }),
  target: object({
    type: Type.String({ description: 'what changed: `channel`, `member`, `account`, …' }),
    id: nullable(Type.String()),
    name: nullable(Type.String()),
  }),
  changes: map<[unknown, unknown]>(
    { type: 'array', minItems: 2, maxItems: 2, items: {} },
    { description: 'field → [before, after] of the changed fields; a secret reads `"••••"`' },
  ),
});
export type AuditEvent = Static<typeof AuditEvent>;

export const AuditQuery = object({
  actor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'a member or API key id, or a kind of actor: `member`, `api_key`, `operator`' }),
  ),
  kind: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'an event kind (`channel.updated`) or its first part (`channel`: every `channel.*`)' }),
  ),
  from: Type.Optional(AuditDate),
  to: Type.Optional(AuditDate),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_LIMIT_MAX, default: AUDIT_LIMIT_DEFAULT })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: '`nextCursor` of the previous page' })),
});
export type AuditQuery = Static<typeof AuditQuery>;

export const AuditCsvQuery = object({
  actor: AuditQuery.properties.actor,
  kind: AuditQuery.properties.kind,
  from: AuditQuery.properties.from,
  to: AuditQuery.properties.to,
});
export type AuditCsvQuery = Static<typeof AuditCsvQuery>;

const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody } as const;

export const auditRoutes = {
  listAuditEvents: route({
    method: 'GET',
    url: '/audit',
    operationId: 'listAuditEvents',
    role: 'admin',
    summary: "The account's audit log, newest first: who changed what, when and from where",
    description:
      'Kept `AUDIT_RETENTION_DAYS` days (365 by default). `from`/`to` bound the event\'s time (UTC days, included). 400 for a date that is not one, `to` before `from`, or a bad cursor.',
    tags: ['Audit log'],
    schema: {
      querystring: AuditQuery,
      response: { 200: object({ events: Type.Array(AuditEvent), nextCursor: nullable(Type.String()) }), ...Errors },
    },
  }),
  downloadAuditCsv: route({
    method: 'GET',
    url: '/audit.csv',
    operationId: 'downloadAuditCsv',
    role: 'admin',
    summary: 'The audit log as CSV (text/csv): a header row, then one row per event, newest first',
    description: 'The same filters as the list. Columns: id, at, actorKind, actorId, actorName, address, kind, targetType, targetId, targetName, changes (JSON).',
    tags: ['Audit log'],
    schema: { querystring: AuditCsvQuery, response: { 200: Type.String({ description: 'text/csv' }), ...Errors } },
  }),
};
