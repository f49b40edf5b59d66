// The demo animal catalog (`/demo/v1`), behind the same API keys and limits as the public API.
import type { KeyAuthenticator } from '../http/public/api-key.ts';
import type { Kernel } from '../kernel/kernel.ts';
import { demoApi } from './demo-plugin.ts';
import type { FeatureModule } from '../kernel/module.ts';
import { createPetsService } from './pets-service.ts';
import { createPetsStore } from './pets-store.ts';

/** The shared pieces this feature uses (made by the composition root). */
export type DemoShared = Pick<Kernel, 'config' | 'counters' | 'db' | 'invalidKeys'>;

export function createDemoModule(core: DemoShared, { authenticator }: { authenticator: KeyAuthenticator }): FeatureModule {
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
