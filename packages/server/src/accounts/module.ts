// Accounts: the operator API that issues accounts and keys, the API-key authenticator of the public API and the
// demo catalog, the console's login, and the team of each account (members, roles, invitations).
import type { AlertQueue } from '../alerts/alert-queue.ts';
import { MEMBER_NAME_NOTICE, MEMBER_NOTICE, type Kernel } from '../kernel/kernel.ts';
import { auditRecorderOf } from '../audit/audit-record.ts';
import type { Transaction } from '../db/client.ts';
import { Errors } from '../errors.ts';
import { adminApi, type AdminOptions } from './admin-routes.ts';
import { registerMemberRoutes } from './member-routes.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createAccountsService } from './accounts-service.ts';
import { createAccountsStore } from './accounts-store.ts';
import { createApiKeyAuthenticator } from './api-key-auth.ts';
import { createConsoleAuth } from './console-auth.ts';
import { createMembersService } from './members-service.ts';
import { createMembersStore } from './members-store.ts';
import { createProfileService } from './profile-service.ts';
import { registerProfileRoutes } from './profile-routes.ts';
import { createSessionsService } from './sessions-service.ts';
import { createSessionsStore } from './sessions-store.ts';
import { createOidcClient } from './oidc-client.ts';
import { registerSsoRoutes } from './sso-routes.ts';
import { createSsoService } from './sso-service.ts';
import { createSsoStore } from './sso-store.ts';
import { createTwoFactorService } from './two-factor-service.ts';
import { createTwoFactorStore } from './two-factor-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type AccountsShared = Pick<
  Kernel,
  'announceCacheChange' | 'app' | 'clock' | 'closeWithApp' | 'config' | 'db' | 'logger' | 'mailer' | 'onCacheNotice' | 'secretBox' | 'urlGuard'
>;

export function createAccountsModule(
  core: AccountsShared,
  options: { apiKeyCacheTtlMs?: number; backup?: AdminOptions['backup']; alerts: Pick<AlertQueue, 'memberRemoved'> },
) {
  const store = createAccountsStore(core.db);
  const membersStore = createMembersStore(core.db);
  const sessionsStore = createSessionsStore(core.db);
  const audit = auditRecorderOf(core.db);
  const ssoStore = createSsoStore(core.db);
  const authenticator = createApiKeyAuthenticator({ store, cacheTtlMs: options.apiKeyCacheTtlMs ?? 2_000 });
  // A member removed, or whose role, password or sign-out ended their sessions: forgotten here at once, and in other
  // processes on the NOTIFY, so their next request is a 401 everywhere.
  const memberChanged = (memberId: string) => {
    consoleAuth.forget(memberId);
    core.announceCacheChange(`${MEMBER_NOTICE}${memberId}`);
  };
  // A new name: forgotten everywhere too, but the member's sessions and live streams go on.
  const memberRenamed = (memberId: string) => {
    consoleAuth.forget(memberId);
    core.announceCacheChange(`${MEMBER_NAME_NOTICE}${memberId}`);
  };
  const twoFactor = createTwoFactorService({
    store: createTwoFactorStore(core.db),
    members: membersStore,
    secretBox: core.secretBox,
    clock: core.clock,
    mailer: core.mailer,
    logger: core.logger,
    memberChanged,
    transaction: (change) =>
      core.db.transaction((tx) =>
        change({ store: createTwoFactorStore(tx), sessions: createSessionsStore(tx), audit: auditRecorderOf(tx) }),
      ),
  });
  const consoleAuth = createConsoleAuth({
    store,
    members: membersStore,
    sessions: sessionsStore,
    transaction: (change) => core.db.transaction((tx) => change({ members: createMembersStore(tx), audit: auditRecorderOf(tx) })),
    twoFactor,
    passwordLoginOff: ssoStore.passwordLoginOff,
    memberChanged,
    clock: core.clock,
    audit,
    jwtSecret: core.config.jwtSecret,
  });
  // A key deactivated or a subscription stopped is forgotten here at once, and in other processes on the NOTIFY.
  core.onCacheNotice((payload) => {
    if (payload === undefined || payload === 'keys') authenticator.invalidate();
    if (payload === undefined) consoleAuth.forget(undefined);
    else if (payload.startsWith(MEMBER_NOTICE)) consoleAuth.forget(payload.slice(MEMBER_NOTICE.length));
    else if (payload.startsWith(MEMBER_NAME_NOTICE)) consoleAuth.forget(payload.slice(MEMBER_NAME_NOTICE.length));
  });
  const accounts = createAccountsService({
    store,
    db: core.db,
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
  const removeMember = (accountId: string, id: string, audit: (tx: Transaction) => Promise<void>) =>
    core.db.transaction(async (tx) => {
      await options.alerts.memberRemoved(tx, accountId, id);
      // Single sign-on lets a removed member back only by a new invitation, never by an allowed domain.
      await createSsoStore(tx).rememberRemoval(accountId, id);
      const removed = await createMembersStore(tx).remove(accountId, id);
      if (!removed) throw Errors.memberNotFound(); // rolls the unassignment back
      await audit(tx);
      return removed;
    });
  const members = createMembersService({
    store: membersStore,
    db: core.db,
    clock: core.clock,
    mailer,
    secretBox: core.secretBox,
    publicUrl: core.config.publicUrl,
    memberChanged,
    removeMember,
  });
  const profile = createProfileService({
    store: membersStore,
    auth: consoleAuth,
    clock: core.clock,
    mailer,
    publicUrl: core.config.publicUrl,
    memberChanged,
    memberRenamed,
    logger: core.logger,
  });
  const sessions = createSessionsService({
    store: sessionsStore,
    members: membersStore,
    clock: core.clock,
    memberChanged,
    transaction: (change) => core.db.transaction((tx) => change({ store: createSessionsStore(tx), audit: auditRecorderOf(tx) })),
  });
  const oidc = createOidcClient({ guard: core.urlGuard });
  core.closeWithApp(oidc);
  const sso = createSsoService({
    db: core.db,
    store: ssoStore,
    oidc,
    secretBox: core.secretBox,
    guard: core.urlGuard,
    clock: core.clock,
    publicUrl: core.config.publicUrl,
    jwtSecret: core.config.jwtSecret,
    startSession: (member, client) => consoleAuth.startSsoSession(member, client),
    memberChanged,
    logger: core.logger,
  });
  return {
    authenticator,
    consoleAuth,
    members,
    profile,
    sso: sso.sso,
    consoleRoutes: (api) => {
      registerMemberRoutes(api, members);
      registerSsoRoutes(api, sso);
      registerProfileRoutes(api, profile, sessions, twoFactor);
    },
    async register(app) {
      await app.register(adminApi, { prefix: '/admin/v1', adminToken: core.config.adminToken, accounts, members, profile, backup: options.backup });
    },
  } satisfies FeatureModule & Record<string, unknown>;
}
