// The team (issue #25): members, invitations, role changes and removals. Who may call each is the contract's `role`.
import { memberRoutes } from '@parley/contracts';
import type { MembersService } from '../../accounts/members-service.ts';
import { routeOptions, type TypedApp } from '../route-options.ts';
import { consoleAccountOf } from './console-plugin.ts';

export function registerMemberRoutes(app: TypedApp, members: MembersService): void {
  app.route({
    ...routeOptions(memberRoutes.listMembers),
    handler: (request) => members.list(consoleAccountOf(request).accountId),
  });
  app.route({
    ...routeOptions(memberRoutes.inviteMember),
    handler: async (request, reply) => reply.code(201).send(await members.invite(consoleAccountOf(request), request.body)),
  });
  app.route({
    ...routeOptions(memberRoutes.updateMember),
    handler: (request) => members.setRole(consoleAccountOf(request).accountId, request.params.id, request.body.role),
  });
  app.route({
    ...routeOptions(memberRoutes.removeMember),
    handler: (request) => members.remove(consoleAccountOf(request).accountId, request.params.id),
  });
}
