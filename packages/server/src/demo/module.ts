// The demo animal catalog (`/demo/v1`), behind the same API keys and limits as the public API.
import type { ApiKeyAuthenticator } from '../accounts/api-key-auth.ts';
import type { Core } from '../core.ts';
import { demoApi } from '../http/demo/demo-plugin.ts';
import type { FeatureModule } from '../module.ts';
import { createPetsService } from './pets-service.ts';
import { createPetsStore } from './pets-store.ts';

export function createDemoModule(core: Core, { authenticator }: { authenticator: Pick<ApiKeyAuthenticator, 'authenticate'> }): FeatureModule {
  return {
    async register(app) {
      await app.register(demoApi, {
        prefix: '/demo/v1',
        authenticator,
        pets: createPetsService({ db: core.db, petsStore: createPetsStore }),
        rateLimitMax: core.config.rateLimitMax,
        counters: core.counters,
        invalidKeys: core.invalidKeys,
      });
    },
  };
}
