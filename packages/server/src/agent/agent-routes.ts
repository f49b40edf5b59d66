// The agent in the console: the test chat and the failed replies.
import { agentRoutes } from '@parley/contracts';
import type { AgentService } from './agent-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';

export function registerAgentRoutes(app: TypedApp, agent: AgentService): void {
  app.route({
    ...routeOptions(agentRoutes.testAgent),
    handler: (request) => agent.test(consoleAccountOf(request).accountId, request.params.channelId, request.body.text, request.body.clarifiedQuestion),
  });
  app.route({
    ...routeOptions(agentRoutes.listAgentFailures),
    handler: (request) => agent.listFailures(consoleAccountOf(request).accountId, request.query),
  });
}
