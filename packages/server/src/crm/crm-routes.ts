// CRM connections in the console (docs/architecture.md, CRM connections): list, connect per kind, channels, disconnect, failures.
import { CRM_KINDS, crmRoutes } from '@parley/contracts';
import type { CrmService } from './crm-service.ts';
import { Errors } from '../errors.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';

export function registerCrmRoutes(app: TypedApp, crm: CrmService): void {
  app.route({
    ...routeOptions(crmRoutes.listCrmConnections),
    handler: (request) => crm.list(consoleAccountOf(request).accountId),
  });
  app.route({
    ...routeOptions(crmRoutes.connectHubspot),
    handler: async (request, reply) => reply.code(201).send(await crm.connect(consoleAccountOf(request).accountId, 'hubspot', request.body)),
  });
  app.route({
    ...routeOptions(crmRoutes.connectPipedrive),
    handler: async (request, reply) => reply.code(201).send(await crm.connect(consoleAccountOf(request).accountId, 'pipedrive', request.body)),
  });
  // Any other `{crm_kind}`: a clear 400 rather than a bare 404 (the kind routes above are matched first).
  app.post('/crm/:kind/connect/', { config: { role: 'admin' } }, (request) => {
    consoleAccountOf(request);
    throw Errors.unknownCrmKind(String((request.params as { kind?: unknown }).kind), CRM_KINDS);
  });
  app.route({
    ...routeOptions(crmRoutes.listCrmFailures),
    handler: (request) => crm.listFailures(consoleAccountOf(request).accountId, request.query),
  });
  app.route({
    ...routeOptions(crmRoutes.updateCrmConnection),
    handler: (request) => crm.setChannels(consoleAccountOf(request).accountId, request.params.id, request.body.channelIds),
  });
  app.route({
    ...routeOptions(crmRoutes.deleteCrmConnection),
    handler: (request) => crm.remove(consoleAccountOf(request).accountId, request.params.id),
  });
}
