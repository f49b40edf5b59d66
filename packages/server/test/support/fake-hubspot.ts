// A fake HubSpot API (https://developers.hubspot.com/docs/api/crm) on a local port: account details, the contact
// property Parley creates, contacts (search by EQ filters, create, 409 on a taken e-mail), deals (create with
// associations, PATCH), notes. Answers like HubSpot: `{ status: "error", message, category }`, 401 for an unknown
// token, 429 with Retry-After when asked.
import { startFakeServer, type Answer, type FakeServer, type RecordedRequest } from './fake-server.ts';

export interface HubspotObject {
  id: string;
  properties: Record<string, string>;
  associations: { toId: string; typeId: number }[];
}

export interface FakeHubspot extends FakeServer {
  /** Makes a private app token known, for a portal. */
  addToken(token: string, portalId: number): void;
  /** A token revoked: every call with it answers 401. */
  revoke(token: string): void;
  /** The next `count` object calls answer 429 with `Retry-After: retryAfterSeconds`. */
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  /** The next object calls answer these errors, one each (an outage, a validation error…). */
  failNext(...answers: { status: number; message: string }[]): void;
  contacts: Map<string, HubspotObject>;
  deals: Map<string, HubspotObject>;
  notes: Map<string, HubspotObject>;
  /** Contact properties defined in the portal beyond the default ones. */
  properties: Set<string>;
  /** Calls with this method and path (`/crm/v3/objects/deals`…), in order. */
  calls(method: string, pathPrefix: string): RecordedRequest[];
}

const DEFAULT_PROPERTIES = new Set(['email', 'firstname', 'lastname', 'phone']);
const problem = (status: number, message: string, category: string, headers?: Record<string, string>): Answer => ({
  status,
  json: { status: 'error', message, correlationId: '00000000-0000-0000-0000-000000000000', category },
  ...(headers ? { headers } : {}),
});

export async function startFakeHubspot(): Promise<FakeHubspot> {
  const tokens = new Map<string, number>();
  const contacts = new Map<string, HubspotObject>();
  const deals = new Map<string, HubspotObject>();
  const notes = new Map<string, HubspotObject>();
  const properties = new Set<string>();
  let nextId = 1000;
  let rateLimited = 0;
  let retryAfter = 1;
  const failures: { status: number; message: string }[] = [];

  const known = (name: string) => DEFAULT_PROPERTIES.has(name) || properties.has(name);
  const view = (object: HubspotObject) => ({
    id: object.id,
    properties: object.properties,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    archived: false,
  });

  function associationsOf(body: Record<string, unknown>): HubspotObject['associations'] | string {
    const list = Array.isArray(body.associations) ? (body.associations as Record<string, unknown>[]) : [];
    const out: HubspotObject['associations'] = [];
    for (const item of list) {
      const to = item.to as { id?: unknown } | undefined;
      const [type] = Array.isArray(item.types) ? (item.types as Record<string, unknown>[]) : [];
      if (typeof to?.id !== 'string' || type?.associationCategory !== 'HUBSPOT_DEFINED' || typeof type.associationTypeId !== 'number') {
        return 'Invalid association';
      }
      out.push({ toId: to.id, typeId: type.associationTypeId });
    }
    return out;
  }

  function create(store: Map<string, HubspotObject>, body: Record<string, unknown>, checkProperties: boolean): Answer {
    const props = (body.properties ?? {}) as Record<string, string>;
    const unknown = checkProperties ? Object.keys(props).filter((name) => !known(name)) : [];
    if (unknown.length > 0) return problem(400, `Property values were not valid: ${unknown.join(', ')} does not exist`, 'VALIDATION_ERROR');
    const associations = associationsOf(body);
    if (typeof associations === 'string') return problem(400, associations, 'VALIDATION_ERROR');
    const object = { id: String(++nextId), properties: { ...props }, associations };
    store.set(object.id, object);
    return { status: 201, json: view(object) };
  }

  function answer(request: RecordedRequest): Answer {
    const auth = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    const portal = auth === undefined ? undefined : tokens.get(auth);
    if (portal === undefined) {
      return problem(401, 'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview', 'INVALID_AUTHENTICATION');
    }
    const body = request.json ?? {};
    const { method, path } = request;
    if (method === 'GET' && path === '/account-info/v3/details') {
      return { status: 200, json: { portalId: portal, accountType: 'STANDARD', timeZone: 'UTC', companyCurrency: 'EUR', uiDomain: 'app.hubspot.com' } };
    }
    const property = /^\/crm\/v3\/properties\/contacts\/([^/]+)$/.exec(path);
    if (method === 'GET' && property) {
      const name = decodeURIComponent(property[1] ?? '');
      return known(name) ? { status: 200, json: { name, type: 'string', fieldType: 'text' } } : problem(404, `Unable to find property ${name}`, 'OBJECT_NOT_FOUND');
    }
    if (method === 'POST' && path === '/crm/v3/properties/contacts') {
      const name = String(body.name);
      if (known(name)) return problem(409, `A property named '${name}' already exists.`, 'OBJECT_ALREADY_EXISTS');
      properties.add(name);
      return { status: 201, json: { name, label: body.label, type: body.type, fieldType: body.fieldType, hasUniqueValue: body.hasUniqueValue } };
    }
    if (!path.startsWith('/crm/v3/objects/')) return problem(404, 'Not found', 'OBJECT_NOT_FOUND');
    const failure = failures.shift();
    if (failure) return problem(failure.status, failure.message, failure.status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR');
    if (rateLimited > 0) {
      rateLimited -= 1;
      return problem(429, 'You have reached your ten_secondly_rolling limit.', 'RATE_LIMITS', { 'retry-after': String(retryAfter) });
    }
    if (method === 'POST' && path === '/crm/v3/objects/contacts/search') {
      const [group] = (body.filterGroups ?? []) as { filters: { propertyName: string; operator: string; value: string }[] }[];
      const filters = group?.filters ?? [];
      const missing = filters.find((filter) => !known(filter.propertyName));
      if (missing) return problem(400, `There was a problem with the request: property ${missing.propertyName} does not exist`, 'VALIDATION_ERROR');
      const results = [...contacts.values()].filter((contact) =>
        filters.every((filter) => filter.operator === 'EQ' && (contact.properties[filter.propertyName] ?? '').toLowerCase() === String(filter.value).toLowerCase()),
      );
      return { status: 200, json: { total: results.length, results: results.slice(0, Number(body.limit ?? 10)).map(view) } };
    }
    if (method === 'POST' && path === '/crm/v3/objects/contacts') {
      const email = (body.properties as Record<string, string> | undefined)?.email;
      const taken = email ? [...contacts.values()].find((contact) => contact.properties.email === email) : undefined;
      if (taken) return problem(409, `Contact already exists. Existing ID: ${taken.id}`, 'CONFLICT');
      return create(contacts, body, true);
    }
    if (method === 'POST' && path === '/crm/v3/objects/deals') return create(deals, body, false);
    if (method === 'POST' && path === '/crm/v3/objects/notes') return create(notes, body, false);
    const deal = /^\/crm\/v3\/objects\/deals\/([^/]+)$/.exec(path);
    if (method === 'PATCH' && deal) {
      const found = deals.get(deal[1] ?? '');
      if (!found) return problem(404, 'resource not found', 'OBJECT_NOT_FOUND');
      Object.assign(found.properties, body.properties ?? {});
      return { status: 200, json: view(found) };
    }
    return problem(404, 'Not found', 'OBJECT_NOT_FOUND');
  }

  const server = await startFakeServer(answer);
  return {
    ...server,
    contacts,
    deals,
    notes,
    properties,
    addToken: (token, portalId) => tokens.set(token, portalId),
    revoke: (token) => tokens.delete(token),
    rateLimitNext(count, seconds) {
      rateLimited = count;
      retryAfter = seconds;
    },
    failNext(...answers) {
      failures.push(...answers);
    },
    calls: (method, pathPrefix) => server.requests.filter((request) => request.method === method && request.path.startsWith(pathPrefix)),
  };
}
