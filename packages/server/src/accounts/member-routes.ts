// The team (issue #25): members, invitations, role changes and removals. Who may call each is the contract's `role`.
import { memberRoutes } from '@parley/contracts';
import type { MembersService } from './members-service.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { auditOf } from '../audit/audit-context.ts';

export function registerMemberRoutes(app: TypedApp, members: MembersService): void {
  app.route({
    ...routeOptions(memberRoutes.listMembers),
    handler: (request) => members.list(consoleAccountOf(request).accountId),
  });
  app.route({
    ...routeOptions(memberRoutes.inviteMember),
    handler: async (request, reply) => reply.code(201).send(await members.invite(consoleAccountOf(request), request.body, auditOf(request))),
  });
  app.route({
    ...routeOptions(memberRoutes.getInvitationLink),
    handler: (request) => members.invitationLink(consoleAccountOf(request).accountId, request.params.id),
  });
  app.route({
    ...routeOptions(memberRoutes.updateMember),
    handler: (request) => members.update(consoleAccountOf(request).accountId, request.params.id, request.body, auditOf(request)),
  });
  app.route({
    ...routeOptions(memberRoutes.removeMember),
    handler: (request) => members.remove(consoleAccountOf(request).accountId, request.params.id, auditOf(request)),
  });
}
