// Outcomes and reports (issue #36): the summary, the ledger and its CSV, the account's settings (the contracts' roles).
import { Readable } from 'node:stream';
import { reportRoutes } from '@parley/contracts';
import { csvHeader, csvRow } from './csv.ts';
import type { ReportsService } from './reports-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { auditOf } from '../audit/audit-context.ts';

export function registerReportRoutes(app: TypedApp, reports: ReportsService): void {
  app.route({
    ...routeOptions(reportRoutes.getReportSummary),
    handler: (request) => reports.summary(consoleAccountOf(request).accountId, request.query),
  });
  app.route({
    ...routeOptions(reportRoutes.listReportConversations),
    handler: (request) => reports.ledger(consoleAccountOf(request).accountId, request.query),
  });
  app.route({
    ...routeOptions(reportRoutes.downloadReportConversations),
    handler: async (request, reply) => {
      const pages = reports.ledgerPages(consoleAccountOf(request).accountId, request.query);
      const body = Readable.from(
        (async function* csv() {
          yield csvHeader();
          for await (const page of pages) yield page.map(csvRow).join('');
        })(),
      );
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="conversations-${request.query.from}-${request.query.to}.csv"`)
        // Fastify sends a stream as it comes (no serializer); the contract's 200 describes its text.
        .send(body as unknown as string);
    },
  });
  app.route({
    ...routeOptions(reportRoutes.getAccountSettings),
    handler: (request) => reports.settings(consoleAccountOf(request).accountId),
  });
  app.route({
    ...routeOptions(reportRoutes.updateAccountSettings),
    handler: (request) => {
      const { accountId, role } = consoleAccountOf(request);
      return reports.updateSettings(accountId, role, request.body, auditOf(request));
    },
  });
}
