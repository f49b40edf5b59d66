// Saved replies (issue #25): the account's reusable answers, typed in the Inbox as `/shortCode`.
import type { Kernel } from '../kernel/kernel.ts';
import { registerCannedResponseRoutes } from './canned-response-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createCannedResponsesService } from './canned-responses-service.ts';
import { createCannedResponsesStore } from './canned-responses-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type RepliesShared = Pick<Kernel, 'db'>;

export function createRepliesModule(core: RepliesShared) {
  const replies = createCannedResponsesService(createCannedResponsesStore(core.db));
  return { consoleRoutes: (api) => registerCannedResponseRoutes(api, replies) } satisfies FeatureModule;
}
