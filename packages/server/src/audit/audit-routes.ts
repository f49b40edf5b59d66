// The audit log (issue #45, item 4): the list and its CSV, for admins (the contracts' roles).
import { Readable } from 'node:stream';
import { auditRoutes } from '@parley/contracts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import type { AuditService } from './audit-service.ts';

export function registerAuditRoutes(app: TypedApp, audit: AuditService): void {
  app.route({
    ...routeOptions(auditRoutes.listAuditEvents),
    handler: (request) => audit.list(consoleAccountOf(request).accountId, request.query),
  });
  app.route({
    ...routeOptions(auditRoutes.downloadAuditCsv),
    handler: async (request, reply) => {
      const body = Readable.from(audit.csv(consoleAccountOf(request).accountId, request.query));
      return (
        reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="audit-log.csv"')
          // Fastify sends a stream as it comes (no serializer); the contract's 200 describes its text.
          .send(body as unknown as string)
      );
    },
  });
}
