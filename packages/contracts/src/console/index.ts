import type { RouteContract } from '../route.ts';
import { actionRoutes } from './actions.ts';
import { agentRoutes } from './agent.ts';
import { assignmentRoutes } from './assignment.ts';
import { auditRoutes } from './audit.ts';
import { authRoutes } from './auth.ts';
import { cannedResponseRoutes } from './canned-responses.ts';
import { channelKindRoutes, channelRoutes } from './channels.ts';
import { crmRoutes } from './crm.ts';
import { deliveryRoutes } from './deliveries.ts';
import { documentRoutes } from './documents.ts';
import { inboxRoutes } from './inbox.ts';
import { knowledgeRoutes } from './knowledge.ts';
import { memberRoutes } from './members.ts';
import { overviewRoutes } from './overview.ts';
import { privacyRoutes } from './privacy.ts';
import { profileRoutes } from './profile.ts';
import { reportRoutes } from './reports.ts';
import { replayRoutes } from './replays.ts';
import { searchRoutes } from './search.ts';
import { ssoRoutes } from './sso.ts';
import { messengerRoutes } from './messengers.ts';

export * from './actions.ts';
export * from './agent.ts';
export * from './assignment.ts';
export * from './audit.ts';
export * from './auth.ts';
export * from './canned-responses.ts';
export * from './channels.ts';
export * from './common.ts';
export * from './crm.ts';
export * from './deliveries.ts';
export * from './documents.ts';
export * from './inbox.ts';
export * from './knowledge.ts';
export * from './members.ts';
export * from './overview.ts';
export * from './privacy.ts';
export * from './profile.ts';
export * from './reports.ts';
export * from './replays.ts';
export * from './search.ts';
export * from './sso.ts';
export * from './messengers.ts';

/** Every route of the console API (`/console/v1`). */
export const consoleRoutes: readonly RouteContract[] = [
  ...Object.values(authRoutes),
  ...Object.values(channelKindRoutes).flatMap((kind) => [kind.connect, kind.update]),
  ...Object.values(channelRoutes),
  ...Object.values(knowledgeRoutes),
  ...Object.values(documentRoutes),
  ...Object.values(inboxRoutes),
  ...Object.values(deliveryRoutes),
  ...Object.values(agentRoutes),
  ...Object.values(overviewRoutes),
  ...Object.values(messengerRoutes),
  ...Object.values(crmRoutes),
  ...Object.values(memberRoutes),
  ...Object.values(cannedResponseRoutes),
  ...Object.values(profileRoutes),
  ...Object.values(reportRoutes),
  ...Object.values(replayRoutes),
  ...Object.values(actionRoutes),
  ...Object.values(searchRoutes),
  ...Object.values(privacyRoutes),
  ...Object.values(ssoRoutes),
  ...Object.values(assignmentRoutes),
  ...Object.values(auditRoutes),
];
