// A fake Pipedrive API v1 (https://developers.pipedrive.com/docs/api/v1) on a local port, standing in for
// `https://{companyDomain}.pipedrive.com` (PIPEDRIVE_API_URL): users/me, personFields, persons (search by e-mail or
// custom fields with exact_match, create), deals (create, PUT), notes. Answers like Pipedrive:
// `{ success: false, error, errorCode }`, 401 for an unknown `x-api-token`, 429 with Retry-After when asked.
import { createHash } from 'node:crypto';
import { startFakeServer, type Answer, type FakeServer, type RecordedRequest } from './fake-server.ts';

export interface PipedriveRecord {
  id: number;
  fields: Record<string, unknown>;
}

export interface FakePipedrive extends FakeServer {
  addToken(token: string, company: { name: string; domain: string }): void;
  revoke(token: string): void;
  rateLimitNext(count: number, retryAfterSeconds: number): void;
  /** Custom person fields: key → name. */
  personFields: Map<string, string>;
  persons: Map<number, PipedriveRecord>;
  deals: Map<number, PipedriveRecord>;
  notes: Map<number, PipedriveRecord>;
  calls(method: string, pathPrefix: string): RecordedRequest[];
}

const failure = (status: number, error: string, headers?: Record<string, string>): Answer => ({
  status,
  json: { success: false, error, errorCode: status, error_info: 'Please check developers.pipedrive.com' },
  ...(headers ? { headers } : {}),
});
const ok = (data: unknown, status = 200): Answer => ({ status, json: { success: true, data } });

export async function startFakePipedrive(): Promise<FakePipedrive> {
  const tokens = new Map<string, { name: string; domain: string }>();
  const personFields = new Map<string, string>();
  const persons = new Map<number, PipedriveRecord>();
  const deals = new Map<number, PipedriveRecord>();
  const notes = new Map<number, PipedriveRecord>();
  let nextId = 1;
  let rateLimited = 0;
  let retryAfter = 1;

  const emailsOf = (person: PipedriveRecord) => (Array.isArray(person.fields.email) ? (person.fields.email as { value: string }[]) : []).map((e) => e.value);

  function answer(request: RecordedRequest): Answer {
    const token = request.headers['x-api-token'];
    const company = typeof token === 'string' ? tokens.get(token) : undefined;
    if (!company) return failure(401, 'unauthorized access');
    const { method, path } = request;
    const body = request.json ?? {};
    if (!path.startsWith('/api/v1/')) return failure(404, 'Unknown method .');
    const route = path.slice('/api/v1'.length);
    if (method === 'GET' && route === '/users/me') {
      return ok({ id: 7, name: 'Owner', email: 'owner@example.com', company_id: 70, company_name: company.name, company_domain: company.domain });
    }
    if (method === 'GET' && route === '/personFields') {
      const builtIn = [
        { id: 1, key: 'name', name: 'Name', field_type: 'varchar' },
        { id: 2, key: 'email', name: 'Email', field_type: 'varchar' },
      ];
      return ok([...builtIn, ...[...personFields].map(([key, name], index) => ({ id: 100 + index, key, name, field_type: 'varchar' }))]);
    }
    if (method === 'POST' && route === '/personFields') {
      const key = createHash('sha1').update(String(body.name)).digest('hex');
      personFields.set(key, String(body.name));
      return ok({ id: 100 + personFields.size, key, name: body.name, field_type: body.field_type }, 201);
    }
    if (rateLimited > 0) {
      rateLimited -= 1;
      return failure(429, 'Rate limit has been exceeded', { 'retry-after': String(retryAfter) });
    }
    if (method === 'GET' && route === '/persons/search') {
      const term = request.query.get('term') ?? '';
      const fields = request.query.get('fields');
      if (request.query.get('exact_match') !== 'true') return failure(400, 'the fake only knows exact_match=true');
      const found = [...persons.values()].filter((person) =>
        fields === 'email'
          ? emailsOf(person).some((email) => email.toLowerCase() === term.toLowerCase())
          : fields === 'custom_fields' && [...personFields.keys()].some((key) => person.fields[key] === term),
      );
      return {
        status: 200,
        json: {
          success: true,
          data: { items: found.map((person) => ({ result_score: 1, item: { id: person.id, type: 'person', name: person.fields.name, emails: emailsOf(person) } })) },
          additional_data: { pagination: { start: 0, limit: 1, more_items_in_collection: false } },
        },
      };
    }
    const create = (store: Map<number, PipedriveRecord>, required: string) => {
      if (body[required] === undefined || body[required] === '') return failure(400, `${required} is required`);
      const record = { id: nextId++, fields: { ...body } };
      store.set(record.id, record);
      return ok({ id: record.id, ...record.fields }, 201);
    };
    if (method === 'POST' && route === '/persons') return create(persons, 'name');
    if (method === 'POST' && route === '/deals') return create(deals, 'title');
    if (method === 'POST' && route === '/notes') return create(notes, 'content');
    const deal = /^\/deals\/(\d+)$/.exec(route);
    if (method === 'PUT' && deal) {
      const found = deals.get(Number(deal[1]));
      if (!found) return failure(404, 'Deal not found');
      Object.assign(found.fields, body);
      return ok({ id: found.id, ...found.fields });
    }
    return failure(404, 'Unknown method .');
  }

  const server = await startFakeServer(answer);
  return {
    ...server,
    personFields,
    persons,
    deals,
    notes,
    addToken: (token, company) => tokens.set(token, company),
    revoke: (token) => tokens.delete(token),
    rateLimitNext(count, seconds) {
      rateLimited = count;
      retryAfter = seconds;
    },
    calls: (method, pathPrefix) => server.requests.filter((request) => request.method === method && request.path.startsWith(pathPrefix)),
  };
}
