// Accounts: the operator API that issues accounts and keys, the API-key authenticator of the public API and the
// demo catalog, and the console's login.
import type { Core } from '../core.ts';
import { adminApi } from '../http/admin/admin-routes.ts';
import type { FeatureModule } from '../module.ts';
import { createAccountsService } from './accounts-service.ts';
import { createAccountsStore } from './accounts-store.ts';
import { createApiKeyAuthenticator } from './api-key-auth.ts';
import { createConsoleAuth } from './console-auth.ts';

export function createAccountsModule(core: Core, options: { apiKeyCacheTtlMs?: number }) {
  const store = createAccountsStore(core.db);
  const authenticator = createApiKeyAuthenticator({ store, cacheTtlMs: options.apiKeyCacheTtlMs ?? 2_000 });
  // A key deactivated or a subscription stopped is forgotten here at once, and in other processes on the NOTIFY.
  core.onCacheNotice((payload) => {
    if (payload === undefined || payload === 'keys') authenticator.invalidate();
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
  return {
    authenticator,
    consoleAuth: createConsoleAuth({ store, clock: core.clock, jwtSecret: core.config.jwtSecret }),
    async register(app) {
      await app.register(adminApi, { prefix: '/admin/v1', adminToken: core.config.adminToken, accounts });
    },
  } satisfies FeatureModule & Record<string, unknown>;
}
