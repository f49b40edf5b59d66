// The audit context of a console request: the calling member and the request's address, made by the route and passed
// to the service next to the account (a service never sees a request object).
import type { FastifyRequest } from 'fastify';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import type { AuditContext } from './audit-record.ts';

export function auditOf(request: FastifyRequest): AuditContext {
  const { memberId, name } = consoleAccountOf(request);
  return { actor: { kind: 'member', id: memberId, name }, address: request.ip };
}
