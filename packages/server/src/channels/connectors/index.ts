// The connectors of the five messenger kinds, built once from the operator's base URLs.
import type { MessengerKind } from '@parley/contracts';
import type { MessengerApis } from '../../config.ts';
import type { Connector } from './connector.ts';
import { createMetaConnector } from './meta.ts';
import type { MessengerHttp } from '../../kernel/messenger-http.ts';
import { createTelegramConnector } from './telegram.ts';
import { createViberConnector } from './viber.ts';

export function createConnectors(http: MessengerHttp, apis: MessengerApis) {
  const telegram = createTelegramConnector({ http, apiUrl: apis.telegram });
  const byKind: Record<MessengerKind, Connector> = {
    telegram,
    whatsapp: createMetaConnector({ http, graphUrl: apis.meta, kind: 'whatsapp' }),
    facebook: createMetaConnector({ http, graphUrl: apis.meta, kind: 'facebook' }),
    instagram: createMetaConnector({ http, graphUrl: apis.meta, kind: 'instagram' }),
    viber: createViberConnector({ http, apiUrl: apis.viber }),
  };
  return { byKind, telegram };
}

export type Connectors = ReturnType<typeof createConnectors>;
