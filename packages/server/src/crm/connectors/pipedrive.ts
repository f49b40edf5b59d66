// Pipedrive API v1 (https://developers.pipedrive.com/docs/api/v1): the user's API token in the `x-api-token` header,
// base `https://{companyDomain}.pipedrive.com` (or PIPEDRIVE_API_URL). connect: GET /api/v1/users/me, then the
// person field "Parley chat key" (GET /api/v1/personFields, created with POST when missing; its key is kept).
// Persons: GET /api/v1/persons/search by e-mail or by the chat key (custom fields, exact match), else POST
// /api/v1/persons. Deals: PUT /api/v1/deals/{id}, else POST /api/v1/deals. Notes: POST /api/v1/notes.
import type { ApiAnswer } from '../../kernel/messenger-http.ts';
import { callCrm, crmError, CrmError, idOf, isSuccess, rec, type CrmConnector, type CrmCredentials, type CrmHttp } from './connector.ts';

export const PIPEDRIVE_CHAT_KEY_FIELD = 'Parley chat key';
/** Pipedrive's 429 carries the delay in Retry-After; without it, two seconds (its limits are per 2 s window). */
const RATE_LIMIT_FALLBACK_MS = 2_000;

/** `{ success: false, error, error_info }` → the CRM's reason. */
function reasonOf(answer: ApiAnswer): string {
  const body = rec(answer.json);
  const error = typeof body?.error === 'string' ? body.error : undefined;
  return error ?? `Pipedrive answered ${answer.status}`;
}

function fail(answer: ApiAnswer): never {
  throw crmError(answer, reasonOf(answer), RATE_LIMIT_FALLBACK_MS);
}

function dataOf(answer: ApiAnswer): unknown {
  const body = rec(answer.json);
  if (!isSuccess(answer) || body?.success !== true) fail(answer);
  return body.data;
}

export function createPipedriveConnector({ http, apiUrl }: { http: CrmHttp; apiUrl: string | undefined }): CrmConnector {
  const base = (companyDomain: string | null) => {
    if (apiUrl) return apiUrl;
    if (!companyDomain) throw new CrmError('refused', 'no Pipedrive company domain');
    return `https://${companyDomain}.pipedrive.com`;
  };
  const call = (
    credentials: Pick<CrmCredentials, 'token' | 'companyDomain'>,
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: unknown,
  ) =>
    callCrm(http, `${base(credentials.companyDomain)}/api/v1${path}`, {
      method,
      headers: { 'x-api-token': credentials.token },
      ...(body === undefined ? {} : { body }),
    });

  /** The first person whose `fields` (email | custom_fields) exactly match `term`. */
  async function search(credentials: CrmCredentials, fields: 'email' | 'custom_fields', term: string): Promise<string | undefined> {
    const query = new URLSearchParams({ term, fields, exact_match: 'true', limit: '1' });
    const data = rec(dataOf(await call(credentials, 'GET', `/persons/search?${query.toString()}`)));
    const [first] = Array.isArray(data?.items) ? (data.items as unknown[]) : [];
    return idOf(rec(rec(first)?.item)?.id);
  }

  return {
    kind: 'pipedrive',

    async connect(credentials) {
      const me = rec(dataOf(await call(credentials, 'GET', '/users/me')));
      const company = typeof me?.company_name === 'string' && me.company_name !== '' ? me.company_name : credentials.companyDomain;
      const fields = dataOf(await call(credentials, 'GET', '/personFields'));
      const existing = (Array.isArray(fields) ? fields : []).map(rec).find((field) => field?.name === PIPEDRIVE_CHAT_KEY_FIELD);
      let chatKeyField = typeof existing?.key === 'string' ? existing.key : undefined;
      if (!chatKeyField) {
        const created = rec(dataOf(await call(credentials, 'POST', '/personFields', { name: PIPEDRIVE_CHAT_KEY_FIELD, field_type: 'varchar' })));
        chatKeyField = typeof created?.key === 'string' ? created.key : undefined;
      }
      if (!chatKeyField) throw new CrmError('refused', 'Pipedrive gave no key for the person field');
      return { name: company ?? 'Pipedrive', settings: { chatKeyField } };
    },

    async upsertContact(credentials, contact) {
      const found =
        (contact.email ? await search(credentials, 'email', contact.email) : undefined) ??
        (await search(credentials, 'custom_fields', contact.chatKey));
      if (found) return found;
      const field = credentials.settings.chatKeyField;
      const person = rec(
        dataOf(
          await call(credentials, 'POST', '/persons', {
            name: contact.name,
            ...(contact.email ? { email: [{ value: contact.email, primary: true, label: 'work' }] } : {}),
            ...(field ? { [field]: contact.chatKey } : {}),
          }),
        ),
      );
      return idOf(person?.id) ?? raise('Pipedrive gave no person id');
    },

    async upsertDeal(credentials, { title, contactId, dealId }) {
      if (dealId) {
        const updated = await call(credentials, 'PUT', `/deals/${encodeURIComponent(dealId)}`, { title });
        if (updated.status !== 404) {
          dataOf(updated);
          return dealId;
        }
        // Deleted in Pipedrive since: a new one.
      }
      const deal = rec(dataOf(await call(credentials, 'POST', '/deals', { title, person_id: Number(contactId) })));
      return idOf(deal?.id) ?? raise('Pipedrive gave no deal id');
    },

    async addNote(credentials, { body, contactId, dealId }) {
      dataOf(await call(credentials, 'POST', '/notes', { content: body, deal_id: Number(dealId), person_id: Number(contactId) }));
    },
  };
}

function raise(description: string): never {
  throw new CrmError('refused', description);
}
