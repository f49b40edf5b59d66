// The audit context of a request: the calling member (console) or API key (public API) and the request's address,
// made by the route and passed to the service next to the account (a service never sees a request object).
import type { FastifyRequest } from 'fastify';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { principalOf } from '../http/public/gateway.ts';
import type { AuditContext } from './audit-record.ts';

export function auditOf(request: FastifyRequest): AuditContext {
  const { memberId, name } = consoleAccountOf(request);
  return { actor: { kind: 'member', id: memberId, name }, address: request.ip };
}

/** A public-API request's: its API key, named by the key's prefix (as `api_key.created` names it). */
export function keyAuditOf(request: FastifyRequest): AuditContext {
  const { keyId, keyPrefix } = principalOf(request);
  return { actor: { kind: 'api_key', id: keyId, name: keyPrefix }, address: request.ip };
}
