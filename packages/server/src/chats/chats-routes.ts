import { publicRoutes } from '@parley/contracts';
import type { ChatsService } from './chats-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { principalOf } from '../http/public/gateway.ts';

export function registerChatRoutes(app: TypedApp, chats: ChatsService): void {
  app.route({
    ...routeOptions(publicRoutes.listChats),
    handler: (request) => chats.listChats(principalOf(request).accountId, request.query),
  });
  app.route({
    ...routeOptions(publicRoutes.readChat),
    handler: (request) => chats.read(principalOf(request).accountId, request.query.id),
  });
  app.route({
    ...routeOptions(publicRoutes.unreadChat),
    handler: (request) => chats.unread(principalOf(request).accountId, request.query.id),
  });
  app.route({
    ...routeOptions(publicRoutes.doneChat),
    handler: async (request, reply) =>
      reply.code(202).send(await chats.requestTaskStatus(principalOf(request).accountId, request.query.id, true)),
  });
  app.route({
    ...routeOptions(publicRoutes.undoneChat),
    handler: async (request, reply) =>
      reply.code(202).send(await chats.requestTaskStatus(principalOf(request).accountId, request.query.id, false)),
  });
  app.route({
    ...routeOptions(publicRoutes.banChat),
    handler: (request) => chats.ban(principalOf(request).accountId, request.query.uniqueId),
  });
  app.route({
    ...routeOptions(publicRoutes.unbanChat),
    handler: (request) => chats.unban(principalOf(request).accountId, request.query.uniqueId),
  });
}
