// The CRM connectors, built once from the operator's base URLs.
import type { CrmKind } from '@parley/contracts';
import type { CrmApis } from '../../config.ts';
import type { CrmConnector, CrmHttp } from './connector.ts';
import { createHubspotConnector } from './hubspot.ts';
import { createPipedriveConnector } from './pipedrive.ts';

export function createCrmConnectors(http: CrmHttp, apis: CrmApis): Record<CrmKind, CrmConnector> {
  return {
    hubspot: createHubspotConnector({ http, apiUrl: apis.hubspot }),
    pipedrive: createPipedriveConnector({ http, apiUrl: apis.pipedrive }),
  };
}
