// The one interface of CRM connectors (docs/architecture.md, CRM connections): check a token and prepare
// the CRM, find or create the contact, create or update the deal, add the transcript as a note. Each kind's module
// speaks its CRM's REST API over the JSON client the messenger connectors use; base URLs are operator settings.
import type { CrmKind } from '@parley/contracts';
import type { StoredCrmSettings } from '../../db/schema.ts';
import { MessengerError } from '../../channels/connectors/connector.ts';
import type { ApiAnswer, MessengerHttp } from '../../kernel/messenger-http.ts';

/** What a connector calls its CRM with: the token (opened), Pipedrive's domain and what connect prepared. */
export interface CrmCredentials {
  token: string;
  companyDomain: string | null;
  settings: StoredCrmSettings;
}

/** The customer of a chat, as the CRM gets it. */
export interface CrmContactInput {
  name: string;
  email: string | null;
  /** The chat key (`uniqueId`), kept in a property of the contact: found again when there is no e-mail. */
  chatKey: string;
}

export interface CrmConnector {
  readonly kind: CrmKind;
  /**
   * Checks the token (a refusal is a `refused` CrmError with the CRM's reason) and prepares the CRM: the contact
   * property (HubSpot) or person field (Pipedrive) that keeps the chat key. Returns the account's name and settings.
   */
  connect(credentials: Omit<CrmCredentials, 'settings'>): Promise<{ name: string; settings: StoredCrmSettings }>;
  /** The contact's id: found by e-mail, else by the chat key; created when neither finds one. */
  upsertContact(credentials: CrmCredentials, contact: CrmContactInput): Promise<string>;
  /** Updates the deal `dealId` (when given and still there), else creates one for the contact. Returns its id. */
  upsertDeal(credentials: CrmCredentials, deal: { title: string; contactId: string; dealId: string | null }): Promise<string>;
  /** Adds a note (HTML body) attached to the deal and the contact. */
  addNote(credentials: CrmCredentials, note: { body: string; at: Date; contactId: string; dealId: string }): Promise<void>;
}

/**
 * A CRM's answer that is not a success. `refused`: a bad token, a missing permission, invalid data (never
 * retried); `rateLimited`: come back after `retryAfterMs`; `unavailable`: 5xx, timeout or network (backoff).
 */
export class CrmError extends Error {
  constructor(
    readonly reason: 'refused' | 'rateLimited' | 'unavailable',
    readonly description: string,
    readonly retryAfterMs?: number,
  ) {
    super(description);
    this.name = 'CrmError';
  }
}

/** The JSON client of the CRM connectors; a network failure or timeout becomes an `unavailable` CrmError. */
export type CrmHttp = Pick<MessengerHttp, 'call'>;

export async function callCrm(http: CrmHttp, url: string, options: Parameters<CrmHttp['call']>[1]): Promise<ApiAnswer> {
  try {
    return await http.call(url, options);
  } catch (error) {
    if (error instanceof MessengerError) throw new CrmError('unavailable', error.description);
    throw error;
  }
}

/** The CrmError of a failed answer, with the CRM's own description; `fallbackRetryMs` when a 429 names no delay. */
export function crmError(answer: ApiAnswer, description: string, fallbackRetryMs: number): CrmError {
  if (answer.status === 429) return new CrmError('rateLimited', description, answer.retryAfterMs ?? fallbackRetryMs);
  if (answer.status >= 500 || answer.status === 0) return new CrmError('unavailable', description);
  return new CrmError('refused', description);
}

export const isSuccess = (answer: ApiAnswer) => answer.status >= 200 && answer.status < 300;

export function rec(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** An id the CRM gave, as a string (HubSpot's are strings, Pipedrive's numbers). */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
