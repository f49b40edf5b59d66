import { tagRoutes } from '@parley/contracts';
import type { TagsService } from './tags-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { principalOf } from '../http/public/gateway.ts';

export function registerTagRoutes(app: TypedApp, tags: TagsService): void {
  app.route({
    ...routeOptions(tagRoutes.listTags),
    handler: (request) => tags.listTags(principalOf(request).accountId, request.query),
  });
  app.route({
    ...routeOptions(tagRoutes.createTag),
    handler: (request) => tags.createTag(principalOf(request).accountId, request.query.tag),
  });
  app.route({
    ...routeOptions(tagRoutes.tagChat),
    handler: (request) => tags.tagChat(principalOf(request).accountId, request.query.id, request.query.tag),
  });
  app.route({
    ...routeOptions(tagRoutes.removeTagFromChat),
    handler: (request) => tags.removeTagFromChat(principalOf(request).accountId, request.query.id, request.query.tag),
  });
  app.route({
    ...routeOptions(tagRoutes.removeTag),
    handler: (request) => tags.removeTag(principalOf(request).accountId, request.query.tag),
  });
}
