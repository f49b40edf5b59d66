// The account's auto-assignment and team hours (issue #44, item 2); admins only (the contract's `role`).
import { assignmentRoutes } from '@parley/contracts';
import { auditOf } from '../audit/audit-context.ts';
import { consoleAccountOf } from '../http/console/console-plugin.ts';
import { routeOptions, type TypedApp } from '../http/route-options.ts';
import type { AssignmentService } from './assignment-service.ts';

export function registerAssignmentRoutes(app: TypedApp, assignment: AssignmentService): void {
  app.route({
    ...routeOptions(assignmentRoutes.getAssignmentSettings),
    handler: (request) => assignment.settings(consoleAccountOf(request).accountId),
  });
  app.route({
    ...routeOptions(assignmentRoutes.updateAssignmentSettings),
    handler: (request) => assignment.update(consoleAccountOf(request).accountId, request.body, auditOf(request)),
  });
  app.route({
    ...routeOptions(assignmentRoutes.getTeamHours),
    handler: (request) => assignment.hours(consoleAccountOf(request).accountId),
  });
  app.route({
    ...routeOptions(assignmentRoutes.updateTeamHours),
    handler: (request) => assignment.setHours(consoleAccountOf(request).accountId, request.body, auditOf(request)),
  });
}
