// Console routes of knowledge bases and their entries: one service call each, always for the logged-in account.
import { knowledgeRoutes } from '@parley/contracts';
import type { KnowledgeService } from './knowledge-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { auditOf } from '../audit/audit-context.ts';

export function registerKnowledgeRoutes(app: TypedApp, knowledge: KnowledgeService): void {
  app.route({
    ...routeOptions(knowledgeRoutes.createKnowledgeBase),
    handler: async (request, reply) =>
      reply.code(201).send(await knowledge.createKnowledgeBase(consoleAccountOf(request).accountId, request.body, auditOf(request))),
  });
  app.route({
    ...routeOptions(knowledgeRoutes.listKnowledgeBases),
    handler: (request) => knowledge.listKnowledgeBases(consoleAccountOf(request).accountId),
  });
  app.route({
    ...routeOptions(knowledgeRoutes.updateKnowledgeBase),
    handler: (request) => knowledge.updateKnowledgeBase(consoleAccountOf(request).accountId, request.params.id, request.body, auditOf(request)),
  });
  app.route({
    ...routeOptions(knowledgeRoutes.deleteKnowledgeBase),
    handler: (request) => knowledge.deleteKnowledgeBase(consoleAccountOf(request).accountId, request.params.id, auditOf(request)),
  });
  app.route({
    ...routeOptions(knowledgeRoutes.listEntries),
    handler: (request) =>
      knowledge.listEntries(consoleAccountOf(request).accountId, request.params.id, request.query),
  });
  app.route({
    ...routeOptions(knowledgeRoutes.createEntry),
    handler: async (request, reply) => {
      const { accountId } = consoleAccountOf(request);
      const entry = await knowledge.addEntry(accountId, request.params.id, { ...request.body, source: 'manual' }, auditOf(request));
      return reply.code(201).send(entry);
    },
  });
  app.route({
    ...routeOptions(knowledgeRoutes.updateEntry),
    handler: (request) =>
      knowledge.updateEntry(consoleAccountOf(request).accountId, request.params.id, request.params.entryId, request.body, auditOf(request)),
  });
  app.route({
    ...routeOptions(knowledgeRoutes.keepLearnedQuestion),
    handler: (request) => {
      const { id, entryId, learnedId } = request.params;
      return knowledge.keepLearnedQuestion(consoleAccountOf(request).accountId, id, entryId, learnedId, auditOf(request));
    },
  });
  app.route({
    ...routeOptions(knowledgeRoutes.discardLearnedQuestion),
    handler: (request) => {
      const { id, entryId, learnedId } = request.params;
      return knowledge.discardLearnedQuestion(consoleAccountOf(request).accountId, id, entryId, learnedId);
    },
  });
  app.route({
    ...routeOptions(knowledgeRoutes.deleteEntry),
    handler: (request) =>
      knowledge.deleteEntry(consoleAccountOf(request).accountId, request.params.id, request.params.entryId, auditOf(request)),
  });
}
