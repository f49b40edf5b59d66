// HubSpot CRM API (https://developers.hubspot.com/docs/api/crm): a private app's token in `Authorization: Bearer`.
// connect: GET /account-info/v3/details (the portal), then the contact property `parley_chat_key` (created when
// missing, unique). Contacts: POST /crm/v3/objects/contacts/search by `email` or `parley_chat_key`, else create.
// Deals: PATCH /crm/v3/objects/deals/{id}, else create with the contact association (type 3). Notes: create with
// `hs_note_body` and associations to the contact (202) and the deal (214).
import type { ApiAnswer } from '../../kernel/messenger-http.ts';
import { callCrm, crmError, CrmError, idOf, isSuccess, rec, type CrmConnector, type CrmCredentials, type CrmHttp } from './connector.ts';

export const HUBSPOT_CHAT_KEY_PROPERTY = 'parley_chat_key';
/** HubSpot-defined association types (v4 association type ids, accepted by the v3 object create calls). */
const DEAL_TO_CONTACT = 3;
const NOTE_TO_CONTACT = 202;
const NOTE_TO_DEAL = 214;
/** New deals: the default pipeline's first stage, where the team takes them over. */
const DEAL_PIPELINE = 'default';
const DEAL_STAGE = 'appointmentscheduled';
/** HubSpot's 429 (ten-second window) often names no delay. */
const RATE_LIMIT_FALLBACK_MS = 10_000;

/** `{ status: "error", message, category }` → the CRM's reason. */
function reasonOf(answer: ApiAnswer): string {
  const body = rec(answer.json);
  const message = typeof body?.message === 'string' ? body.message : undefined;
  return message ?? `HubSpot answered ${answer.status}`;
}

function fail(answer: ApiAnswer): never {
  throw crmError(answer, reasonOf(answer), RATE_LIMIT_FALLBACK_MS);
}

const association = (id: string, typeId: number) => ({
  to: { id },
  types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: typeId }],
});

export function createHubspotConnector({ http, apiUrl }: { http: CrmHttp; apiUrl: string }): CrmConnector {
  const call = (token: string, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) =>
    callCrm(http, `${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { body }),
    });

  /** The id of the first contact whose `property` equals `value`, if any. */
  async function search(credentials: CrmCredentials, property: string, value: string): Promise<string | undefined> {
    const answer = await call(credentials.token, 'POST', '/crm/v3/objects/contacts/search', {
      filterGroups: [{ filters: [{ propertyName: property, operator: 'EQ', value }] }],
      properties: ['email', HUBSPOT_CHAT_KEY_PROPERTY],
      limit: 1,
    });
    if (!isSuccess(answer)) fail(answer);
    const [first] = Array.isArray(rec(answer.json)?.results) ? (rec(answer.json)?.results as unknown[]) : [];
    return idOf(rec(first)?.id);
  }

  return {
    kind: 'hubspot',

    async connect({ token }) {
      const details = await call(token, 'GET', '/account-info/v3/details');
      if (!isSuccess(details)) fail(details);
      const portalId = idOf(rec(details.json)?.portalId);
      if (!portalId) throw new CrmError('refused', 'HubSpot gave no portal id');
      const property = await call(token, 'GET', `/crm/v3/properties/contacts/${HUBSPOT_CHAT_KEY_PROPERTY}`);
      if (property.status === 404) {
        const created = await call(token, 'POST', '/crm/v3/properties/contacts', {
          name: HUBSPOT_CHAT_KEY_PROPERTY,
          label: 'Parley chat key',
          description: 'The chat key (uniqueId) of the Parley chat this contact came from',
          groupName: 'contactinformation',
          type: 'string',
          fieldType: 'text',
          hasUniqueValue: true,
        });
        // 409: created meanwhile by another connection of the same portal.
        if (!isSuccess(created) && created.status !== 409) fail(created);
      } else if (!isSuccess(property)) {
        fail(property);
      }
      return { name: `HubSpot portal ${portalId}`, settings: { portalId } };
    },

    async upsertContact(credentials, contact) {
      const found =
        (contact.email ? await search(credentials, 'email', contact.email) : undefined) ??
        (await search(credentials, HUBSPOT_CHAT_KEY_PROPERTY, contact.chatKey));
      if (found) return found;
      const answer = await call(credentials.token, 'POST', '/crm/v3/objects/contacts', {
        properties: { firstname: contact.name, [HUBSPOT_CHAT_KEY_PROPERTY]: contact.chatKey, ...(contact.email ? { email: contact.email } : {}) },
      });
      // A contact with this e-mail appeared since the search: HubSpot names it ("Contact already exists. Existing ID: 123").
      const existing = answer.status === 409 ? /Existing ID: (\d+)/.exec(reasonOf(answer))?.[1] : undefined;
      if (existing) return existing;
      if (!isSuccess(answer)) fail(answer);
      return idOf(rec(answer.json)?.id) ?? fail(answer);
    },

    async upsertDeal(credentials, { title, contactId, dealId }) {
      if (dealId) {
        const updated = await call(credentials.token, 'PATCH', `/crm/v3/objects/deals/${encodeURIComponent(dealId)}`, {
          properties: { dealname: title },
        });
        if (isSuccess(updated)) return dealId;
        if (updated.status !== 404) fail(updated);
        // Deleted in HubSpot since: a new one.
      }
      const created = await call(credentials.token, 'POST', '/crm/v3/objects/deals', {
        properties: { dealname: title, pipeline: DEAL_PIPELINE, dealstage: DEAL_STAGE },
        associations: [association(contactId, DEAL_TO_CONTACT)],
      });
      if (!isSuccess(created)) fail(created);
      return idOf(rec(created.json)?.id) ?? fail(created);
    },

    async addNote(credentials, { body, at, contactId, dealId }) {
      const answer = await call(credentials.token, 'POST', '/crm/v3/objects/notes', {
        properties: { hs_timestamp: at.toISOString(), hs_note_body: body },
        associations: [association(contactId, NOTE_TO_CONTACT), association(dealId, NOTE_TO_DEAL)],
      });
      if (!isSuccess(answer)) fail(answer);
    },
  };
}
