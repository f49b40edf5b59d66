// CRM connections (docs/architecture.md, CRM connections; spec console table: `GET /v1/crm/all/`,
// `POST /v1/crm/{crm_kind}/connect/`): HubSpot and Pipedrive. When a chat's task becomes done, a job upserts the
// contact, creates or updates a deal and adds the transcript as a note. Tokens are write-only.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum, Timestamp } from '../schema.ts';
import { ConsoleErrors, Uuid } from './common.ts';

export const CRM_KINDS = ['hubspot', 'pipedrive'] as const;
export type CrmKind = (typeof CRM_KINDS)[number];

export function isCrmKind(value: string): value is CrmKind {
  return (CRM_KINDS as readonly string[]).includes(value);
}

const ChannelIds = nullable(
  Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    maxItems: 200,
    uniqueItems: true,
    description: 'channels whose chats are synced; null or absent: every channel of the account',
  }),
);

/** A token sent in a header: printable ASCII without spaces. */
const Token = (description: string) => Type.String({ minLength: 1, maxLength: 500, pattern: '^[\\x21-\\x7E]+$', description });

/** One chat as a connection synced it (or tried to). */
export const CrmSync = object({
  chatId: Type.String(),
  dialogName: Type.String(),
  status: stringEnum(['pending', 'synced', 'failed'] as const),
  contactId: nullable(Type.String({ description: "the CRM's contact (HubSpot) or person (Pipedrive) id" })),
  dealId: nullable(Type.String()),
  attempts: Type.Integer({ minimum: 0, description: 'tries of the last sync' }),
  error: nullable(Type.String({ description: "the CRM's reason for the last failure" })),
  requestedAt: Timestamp,
  syncedAt: nullable(Timestamp),
  updatedAt: Timestamp,
});
export type CrmSync = Static<typeof CrmSync>;

/** A CRM connection, console view: the token is never shown. */
export const CrmConnection = object({
  id: Type.String(),
  kind: stringEnum(CRM_KINDS),
  name: Type.String({ description: 'the HubSpot portal or the Pipedrive company' }),
  companyDomain: nullable(Type.String({ description: 'Pipedrive only' })),
  channelIds: ChannelIds,
  tokenSet: Type.Boolean({ description: 'a token is stored (it is never shown)' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lastSync: nullable(CrmSync),
  failedCount: Type.Integer({ minimum: 0 }),
  recentFailures: Type.Array(CrmSync, { description: 'the last five failed syncs, newest first' }),
});
export type CrmConnection = Static<typeof CrmConnection>;

/** A failed sync with its connection. */
export const CrmSyncFailure = object({
  ...CrmSync.properties,
  connectionId: Type.String(),
  kind: stringEnum(CRM_KINDS),
});
export type CrmSyncFailure = Static<typeof CrmSyncFailure>;

export const CrmConnectBodies = {
  hubspot: object({
    token: Token("write-only; a HubSpot private app's access token"),
    channelIds: Type.Optional(ChannelIds),
  }),
  pipedrive: object({
    token: Token('write-only; the API token of a Pipedrive user'),
    companyDomain: Type.String({
      minLength: 1,
      maxLength: 63,
      pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$',
      description: 'the `<companyDomain>` of `<companyDomain>.pipedrive.com`',
    }),
    channelIds: Type.Optional(ChannelIds),
  }),
} as const;
export type HubspotConnectBody = Static<typeof CrmConnectBodies.hubspot>;
export type PipedriveConnectBody = Static<typeof CrmConnectBodies.pipedrive>;
export type CrmConnectBody = HubspotConnectBody | PipedriveConnectBody;

const ConnectErrors = { 400: ErrorBody, 401: ErrorBody, 502: ErrorBody } as const;
const connectDescription =
  "The token is checked against the CRM first: a refusal is a 400 carrying the CRM's reason (nothing stored); 502 when the CRM cannot be reached.";

export const crmRoutes = {
  listCrmConnections: route({
    method: 'GET',
    url: '/crm/all/',
    operationId: 'listCrmConnections',
    role: 'admin',
    summary: "The account's CRM connections with their last sync and recent failures",
    tags: ['CRM'],
    schema: { response: { 200: object({ connections: Type.Array(CrmConnection) }), ...ConsoleErrors } },
  }),
  connectHubspot: route({
    method: 'POST',
    url: '/crm/hubspot/connect/',
    operationId: 'connectHubspot',
    role: 'admin',
    summary: 'Connect HubSpot (a private app token)',
    description: connectDescription,
    tags: ['CRM'],
    schema: { body: CrmConnectBodies.hubspot, response: { 201: CrmConnection, ...ConnectErrors } },
  }),
  connectPipedrive: route({
    method: 'POST',
    url: '/crm/pipedrive/connect/',
    operationId: 'connectPipedrive',
    role: 'admin',
    summary: 'Connect Pipedrive (an API token and the company domain)',
    description: connectDescription,
    tags: ['CRM'],
    schema: { body: CrmConnectBodies.pipedrive, response: { 201: CrmConnection, ...ConnectErrors } },
  }),
  listCrmFailures: route({
    method: 'GET',
    url: '/crm/failures/',
    operationId: 'listCrmFailures',
    role: 'admin',
    summary: 'Chats whose sync to a CRM failed for good, newest first',
    tags: ['CRM'],
    schema: {
      querystring: object({
        connectionId: Type.Optional(Uuid),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
      }),
      response: { 200: object({ failures: Type.Array(CrmSyncFailure) }), ...ConsoleErrors },
    },
  }),
  updateCrmConnection: route({
    method: 'PUT',
    url: '/crm/:id/',
    operationId: 'updateCrmConnection',
    role: 'admin',
    summary: 'Choose the channels a CRM connection applies to',
    tags: ['CRM'],
    schema: {
      params: object({ id: Uuid }),
      body: object({ channelIds: ChannelIds }),
      response: { 200: CrmConnection, ...ConsoleErrors },
    },
  }),
  deleteCrmConnection: route({
    method: 'DELETE',
    url: '/crm/:id/',
    operationId: 'deleteCrmConnection',
    role: 'admin',
    summary: 'Disconnect a CRM (its token and sync records are deleted; nothing is removed from the CRM)',
    tags: ['CRM'],
    schema: { params: object({ id: Uuid }), response: { 200: object({ success: Type.Literal(true) }), ...ConsoleErrors } },
  }),
} as const;
