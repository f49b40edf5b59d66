// Saved replies (issue #25): the account's reusable answers, typed in the Inbox as `/shortCode`.
import type { Core } from '../core.ts';
import { registerCannedResponseRoutes } from '../http/console/canned-response-routes.ts';
import type { FeatureModule } from '../module.ts';
import { createCannedResponsesService } from './canned-responses-service.ts';
import { createCannedResponsesStore } from './canned-responses-store.ts';

export function createRepliesModule(core: Core) {
  const replies = createCannedResponsesService(createCannedResponsesStore(core.db));
  return { consoleRoutes: (api) => registerCannedResponseRoutes(api, replies) } satisfies FeatureModule;
}
