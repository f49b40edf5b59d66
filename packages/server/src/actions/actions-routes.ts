// Console routes of actions (docs/architecture.md, Agent actions): one service call each, always for the logged-in
// account; the contract of each names the role it needs (an agent reads, an admin changes and calls).
import { actionRoutes } from '@parley/contracts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { auditOf } from '../audit/audit-context.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import type { ActionsService } from './actions-service.ts';

export function registerActionRoutes(app: TypedApp, actions: ActionsService): void {
  app.route({
    ...routeOptions(actionRoutes.listActions),
    handler: (request) => actions.list(consoleAccountOf(request).accountId),
  });
  app.route({
    ...routeOptions(actionRoutes.createAction),
    handler: async (request, reply) => reply.code(201).send(await actions.create(consoleAccountOf(request).accountId, request.body, auditOf(request))),
  });
  app.route({
    ...routeOptions(actionRoutes.importActions),
    handler: async (request, reply) => reply.code(201).send(await actions.importOpenApi(consoleAccountOf(request).accountId, request.body, auditOf(request))),
  });
  app.route({
    ...routeOptions(actionRoutes.previewActionImport),
    handler: async (request) => actions.previewImport(request.body),
  });
  app.route({
    ...routeOptions(actionRoutes.getAction),
    handler: (request) => actions.get(consoleAccountOf(request).accountId, request.params.id),
  });
  app.route({
    ...routeOptions(actionRoutes.updateAction),
    handler: (request) => actions.update(consoleAccountOf(request).accountId, request.params.id, request.body, auditOf(request)),
  });
  app.route({
    ...routeOptions(actionRoutes.deleteAction),
    handler: (request) => actions.remove(consoleAccountOf(request).accountId, request.params.id, auditOf(request)),
  });
  app.route({
    ...routeOptions(actionRoutes.testAction),
    handler: (request) => actions.test(consoleAccountOf(request).accountId, request.params.id, request.body),
  });
  app.route({
    ...routeOptions(actionRoutes.listActionRuns),
    handler: (request) => actions.runs(consoleAccountOf(request).accountId, request.params.id, request.query),
  });
}
