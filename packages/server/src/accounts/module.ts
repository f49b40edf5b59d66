// Accounts: the operator API that issues accounts and keys, the API-key authenticator of the public API and the
// demo catalog, the console's login, and the team of each account (members, roles, invitations).
import type { AlertQueue } from '../alerts/alert-queue.ts';
import type { Kernel } from '../kernel/kernel.ts';
import { Errors } from '../errors.ts';
import { adminApi, type AdminOptions } from '../http/admin/admin-routes.ts';
import { registerMemberRoutes } from '../http/console/member-routes.ts';
import type { FeatureModule } from '../module.ts';
import { createAccountsService } from './accounts-service.ts';
import { createAccountsStore } from './accounts-store.ts';
import { createApiKeyAuthenticator } from './api-key-auth.ts';
import { createConsoleAuth, MEMBER_NOTICE } from './console-auth.ts';
import { createMembersService } from './members-service.ts';
import { createMembersStore } from './members-store.ts';
import { createProfileService } from './profile-service.ts';
import { registerProfileRoutes } from '../http/console/profile-routes.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type AccountsShared = Pick<Kernel, 'announceCacheChange' | 'app' | 'clock' | 'config' | 'db' | 'logger' | 'mailer' | 'onCacheNotice'>;

export function createAccountsModule(
  core: AccountsShared,
  options: { apiKeyCacheTtlMs?: number; backup?: AdminOptions['backup']; alerts: Pick<AlertQueue, 'memberRemoved'> },
) {
  const store = createAccountsStore(core.db);
  const membersStore = createMembersStore(core.db);
  const authenticator = createApiKeyAuthenticator({ store, cacheTtlMs: options.apiKeyCacheTtlMs ?? 2_000 });
  // A member removed, or whose role, password or sign-out ended their sessions: forgotten here at once, and in other
  // processes on the NOTIFY, so their next request is a 401 everywhere.
  const memberChanged = (memberId: string) => {
    consoleAuth.forget(memberId);
    core.announceCacheChange(`${MEMBER_NOTICE}${memberId}`);
  };
  const consoleAuth = createConsoleAuth({ store, members: membersStore, memberChanged, clock: core.clock, jwtSecret: core.config.jwtSecret });
  // A key deactivated or a subscription stopped is forgotten here at once, and in other processes on the NOTIFY.
  core.onCacheNotice((payload) => {
    if (payload === undefined || payload === 'keys') authenticator.invalidate();
    if (payload === undefined) consoleAuth.forget(undefined);
    else if (payload.startsWith(MEMBER_NOTICE)) consoleAuth.forget(payload.slice(MEMBER_NOTICE.length));
  });
  const accounts = createAccountsService({
    store,
    clock: core.clock,
    authenticator: {
      invalidate: () => {
        authenticator.invalidate();
        core.announceCacheChange('keys');
      },
    },
  });
  const { mailer } = core;
  // Removing a member unassigns its chats and flags the paused ones, in the removal's transaction (issue #33).
  const removeMember = (accountId: string, id: string) =>
    core.db.transaction(async (tx) => {
      await options.alerts.memberRemoved(tx, accountId, id);
      const removed = await createMembersStore(tx).remove(accountId, id);
      if (!removed) throw Errors.memberNotFound(); // rolls the unassignment back
      return removed;
    });
  const members = createMembersService({ store: membersStore, clock: core.clock, mailer, publicUrl: core.config.publicUrl, memberChanged, removeMember });
  const profile = createProfileService({
    store: membersStore,
    auth: consoleAuth,
    clock: core.clock,
    mailer,
    publicUrl: core.config.publicUrl,
    memberChanged,
    logger: core.logger,
  });
  return {
    authenticator,
    consoleAuth,
    members,
    profile,
    consoleRoutes: (api) => {
      registerMemberRoutes(api, members);
      registerProfileRoutes(api, profile);
    },
    async register(app) {
      await app.register(adminApi, { prefix: '/admin/v1', adminToken: core.config.adminToken, accounts, members, backup: options.backup });
    },
  } satisfies FeatureModule & Record<string, unknown>;
}
