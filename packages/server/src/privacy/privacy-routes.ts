// Customer data (issue #45, item 5): the export as a zip and the erasure, for admins (the contracts' roles).
import { privacyRoutes } from '@parley/contracts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { auditOf } from '../audit/audit-context.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import type { CustomerDataService } from './customer-data-service.ts';

export function registerPrivacyRoutes(app: TypedApp, customers: CustomerDataService): void {
  app.route({
    ...routeOptions(privacyRoutes.exportCustomerData),
    handler: async (request, reply) => {
      const zip = await customers.export(consoleAccountOf(request).accountId, request.query, auditOf(request));
      return (
        reply
          .type('application/zip')
          .header('content-disposition', 'attachment; filename="customer-data.zip"')
          // Fastify sends a stream as it comes (no serializer); the contract's 200 describes its bytes.
          .send(zip as unknown as string)
      );
    },
  });
  app.route({
    ...routeOptions(privacyRoutes.eraseCustomerData),
    handler: (request) => customers.erase(consoleAccountOf(request).accountId, request.body, auditOf(request)),
  });
}
