// Channels of every kind with their agent settings, engine, working hours and webhook (console API).
import { randomBytes } from 'node:crypto';
import {
  isMessengerKind,
  type MessengerKind,
  type AgentEngineInput,
  type AgentSettings,
  type Channel,
  type ChannelKind,
  type ConnectChannelBody,
  type UpdateChannelBody,
  type WidgetSettingsInput,
  type WidgetSettingsView,
  type WorkingHours,
  WIDGET_DEFAULTS,
} from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { diffChanges, recordAudit, type AuditContext } from '../audit/audit-record.ts';
import type { Database, Executor } from '../db/client.ts';
import type { StoredAgentEngine, StoredWidgetSettings } from '../db/schema.ts';
import { Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { signatureHeaders } from '../webhooks/signing.ts';
import type { WebhookClient } from '../kernel/http-client.ts';
import { sampleNewMessagesEvent } from '../webhooks/payloads.ts';
import type { UrlGuard } from '../kernel/url-guard.ts';
import type { ChannelChanges, ChannelRow, ChannelsStore } from './channels-store.ts';
import { MessengerError, type Credentials } from './connectors/connector.ts';
import { normalizeOrigin } from './origins.ts';

/** Time limit of one request to an openai-compatible model server. */
export const DEFAULT_ENGINE_TIMEOUT_SECONDS = 30;

export const DEFAULT_SETTINGS: AgentSettings = {
  behavior: '',
  role: '',
  task: '',
  greeting: '',
  isActive: true,
  aiLang: 'en',
};

/** API channel IDs: `cc:` and a random token (spec: they start with `cc:`). */
export function newChannelId(kind: ChannelKind): string {
  return kind === 'custom' ? `cc:${randomBytes(18).toString('base64url')}` : newId();
}

function minutes(clock: string): number {
  const [h, m] = clock.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

/** The time zone must be one the runtime knows; every interval must end after it starts. */
export function validateWorkingHours(hours: WorkingHours): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: hours.timeZone });
  } catch {
    throw Errors.invalidTimeZone(hours.timeZone);
  }
  hours.intervals.forEach((interval, index) => {
    if (minutes(interval.from) >= minutes(interval.to)) throw Errors.invalidInterval(index);
  });
}

/** Where a messenger posts a channel's updates (docs/architecture.md, Messenger connectors → inbound). */
export function inboundUrl(publicUrl: string, kind: string, channelId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/channels/${kind}/${encodeURIComponent(channelId)}/webhook`;
}

const META_KINDS: readonly string[] = ['whatsapp', 'facebook', 'instagram'];

/** The tag a site owner pastes into a page (docs/architecture.md, Chat widget). */
export function widgetSnippet(publicUrl: string, channelId: string): string {
  return `<script src="${publicUrl.replace(/\/+$/, '')}/widget.js" data-channel="${channelId}" async></script>`;
}

/** A widget channel's settings with the defaults for whatever was never set. */
export function widgetSettingsOf(row: Pick<ChannelRow, 'widget'>): StoredWidgetSettings {
  return { ...WIDGET_DEFAULTS, ...row.widget };
}

function widgetView(row: ChannelRow, publicUrl: string): WidgetSettingsView {
  return {
    ...widgetSettingsOf(row),
    identitySecretSet: row.widgetIdentitySecret !== null,
    snippet: widgetSnippet(publicUrl, row.id),
  };
}

export function toChannelView(row: ChannelRow, publicUrl: string): Channel {
  const engine = row.agentEngine;
  const messenger = isMessengerKind(row.kind);
  return {
    id: row.id,
    type: row.kind as ChannelKind,
    name: row.name,
    webhookUrl: row.webhookUrl,
    webhookSecretSet: row.webhookSecret !== null,
    disableAgentResponses: row.disableAgentResponses,
    settings: { ...DEFAULT_SETTINGS, ...row.settings },
    knowledgeBaseId: row.knowledgeBaseId,
    agentEngine:
      engine.kind === 'openai-compatible'
        ? {
            kind: engine.kind,
            baseUrl: engine.baseUrl,
            model: engine.model,
            timeoutSeconds: engine.timeoutSeconds ?? DEFAULT_ENGINE_TIMEOUT_SECONDS,
            transcriptionModel: engine.transcriptionModel ?? null,
            apiKeySet: row.agentApiKey !== null,
          }
        : { kind: 'knowledge-base', ...(engine.answerThreshold !== undefined ? { answerThreshold: engine.answerThreshold } : {}) },
    workingHours: row.workingHours,
    autoReply: row.autoReply,
    handoffMessage: row.handoffMessage,
    handoffAfterFallbacks: row.handoffAfterFallbacks,
    clarifyChoices: row.clarifyChoices,
    clarifyPrompt: row.clarifyPrompt,
    actionIds: row.actionIds,
    credentialsSet: row.credentials !== null,
    inboundUrl: messenger ? inboundUrl(publicUrl, row.kind, row.id) : null,
    // Not a secret with any power: Meta only sends it back on its GET check, and the owner must type the same
    // value in Meta's dashboard, so the page shows it beside the inbound URL (docs/decisions.md).
    verifyToken: META_KINDS.includes(row.kind) ? (row.credentials?.verifyToken ?? null) : null,
    connectorError:
      row.connectorError !== null && row.connectorErrorAt !== null
        ? { message: row.connectorError, at: row.connectorErrorAt.toISOString() }
        : null,
    ...(row.kind === 'widget' ? { widget: widgetView(row, publicUrl) } : {}),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Points a messenger's webhook at Parley, or takes it away (channels/connectors, `register`/`unregister`). */
export interface MessengerRegistrar {
  register(kind: MessengerKind, credentials: Credentials, inboundUrl: string): Promise<Credentials>;
  unregister(kind: MessengerKind, credentials: Credentials): Promise<void>;
}

/** A channel's fields the audit log shows (not its id, account, kind, timestamps or the connector's last error). */
const CHANNEL_SECRETS = ['webhookSecret', 'agentApiKey', 'credentials', 'widgetIdentitySecret'] as const;
function auditedFields(row: ChannelRow | undefined): Record<string, unknown> | undefined {
  if (!row) return undefined;
  const fields: Record<string, unknown> = { ...row };
  for (const key of ['id', 'accountId', 'kind', 'createdAt', 'updatedAt', 'connectorError', 'connectorErrorAt']) delete fields[key];
  return fields;
}

export interface ChannelsServiceDeps {
  store: ChannelsStore;
  /** A change and its audit event are written in one transaction (the store over it: storeOf). */
  db: Database;
  storeOf: (executor: Executor) => ChannelsStore;
  clock: Clock;
  urlGuard: Pick<UrlGuard, 'check'>;
  webhookClient: Pick<WebhookClient, 'post'>;
  /** PUBLIC_URL: the base of the inbound URLs given to the messengers. */
  publicUrl: string;
  messengers: MessengerRegistrar;
  logger: Pick<FastifyBaseLogger, 'warn'>;
}

/** A messenger's refusal is the owner's to fix (400 with its description); no answer at all is a 502. */
function registrationError(error: unknown): Error {
  if (!(error instanceof MessengerError)) return error as Error;
  return error.reason === 'refused' ? Errors.messengerRefused(error.description) : Errors.messengerUnavailable(error.description);
}

/** The engine as stored, and what happens to its API key (kept when a change does not give a new one). */
function engineChanges(input: AgentEngineInput, previous: ChannelRow | undefined): ChannelChanges {
  if (input.kind === 'knowledge-base') {
    const agentEngine: StoredAgentEngine = { kind: 'knowledge-base', ...(input.answerThreshold !== undefined ? { answerThreshold: input.answerThreshold } : {}) };
    return { agentEngine, agentApiKey: null };
  }
  const agentEngine: StoredAgentEngine = {
    kind: input.kind,
    baseUrl: input.baseUrl,
    model: input.model,
    timeoutSeconds: input.timeoutSeconds ?? DEFAULT_ENGINE_TIMEOUT_SECONDS,
    transcriptionModel: input.transcriptionModel ?? null,
  };
  const keepKey = previous?.agentEngine.kind === 'openai-compatible' ? previous.agentApiKey : null;
  return { agentEngine, agentApiKey: input.apiKey ?? keepKey };
}

/** Changed widget fields over the stored ones; the identity secret is kept unless a new one (or null) is given. */
function widgetChanges(input: WidgetSettingsInput, previous: ChannelRow | undefined): ChannelChanges {
  const { identitySecret, preChatForm, ...fields } = input;
  const stored = widgetSettingsOf(previous ?? { widget: null });
  const widget = { ...stored, ...fields, preChatForm: { ...stored.preChatForm, ...preChatForm } };
  widget.allowedOrigins = [...new Set(widget.allowedOrigins.map((origin) => normalizeOrigin(origin) ?? origin.toLowerCase()))];
  const secret = identitySecret === undefined ? (previous?.widgetIdentitySecret ?? null) : identitySecret;
  if (widget.requireVerifiedIdentity && secret === null) throw Errors.widgetIdentitySecretMissing();
  return { widget, widgetIdentitySecret: secret };
}

/** A console body's fields as the row's changes over `previous` (none when connecting). */
function changesOf(body: UpdateChannelBody, previous: ChannelRow | undefined): ChannelChanges {
  const changes: ChannelChanges = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.webhookUrl !== undefined) changes.webhookUrl = body.webhookUrl;
  if (body.webhookSecret !== undefined) changes.webhookSecret = body.webhookSecret;
  if (body.disableAgentResponses !== undefined) changes.disableAgentResponses = body.disableAgentResponses;
  if (body.settings !== undefined) changes.settings = { ...DEFAULT_SETTINGS, ...previous?.settings, ...body.settings };
  if (body.knowledgeBaseId !== undefined) changes.knowledgeBaseId = body.knowledgeBaseId;
  if (body.agentEngine !== undefined) Object.assign(changes, engineChanges(body.agentEngine, previous));
  if (body.workingHours !== undefined) changes.workingHours = body.workingHours;
  if (body.autoReply !== undefined) changes.autoReply = body.autoReply;
  if (body.handoffMessage !== undefined) changes.handoffMessage = body.handoffMessage;
  if (body.handoffAfterFallbacks !== undefined) changes.handoffAfterFallbacks = body.handoffAfterFallbacks;
  if (body.clarifyChoices !== undefined) changes.clarifyChoices = body.clarifyChoices;
  if (body.clarifyPrompt !== undefined) changes.clarifyPrompt = body.clarifyPrompt;
  if (body.actionIds !== undefined) changes.actionIds = body.actionIds;
  if (body.credentials !== undefined) changes.credentials = body.credentials;
  if (body.widget !== undefined) Object.assign(changes, widgetChanges(body.widget, previous));
  return changes;
}

export function createChannelsService({ store, db, storeOf, clock, urlGuard, webhookClient, publicUrl, messengers, logger }: ChannelsServiceDeps) {
  const view = (row: ChannelRow) => toChannelView(row, publicUrl);

  /** The audit event of a channel's change, in `tx` (secrets "••••"; the bookkeeping columns left out). */
  function recorded(tx: Executor, audit: AuditContext, kind: 'channel.created' | 'channel.updated' | 'channel.deleted', before: ChannelRow | undefined, after: ChannelRow | undefined) {
    const row = after ?? before;
    if (!row) return Promise.resolve();
    const changes = diffChanges(auditedFields(before), auditedFields(after), { secrets: CHANNEL_SECRETS });
    if (kind === 'channel.updated' && Object.keys(changes).length === 0) return Promise.resolve();
    return recordAudit(tx, audit, { accountId: row.accountId, kind, target: { type: 'channel', id: row.id, name: row.name }, changes });
  }

  /** Registers the webhook with new credentials; the credentials to store (Telegram's secret token added). */
  async function register(kind: MessengerKind, channelId: string, credentials: Credentials): Promise<Credentials> {
    try {
      return await messengers.register(kind, credentials, inboundUrl(publicUrl, kind, channelId));
    } catch (error) {
      throw registrationError(error);
    }
  }
  async function requireChannel(accountId: string, kind: ChannelKind, id: string): Promise<ChannelRow> {
    const row = await store.find(accountId, id);
    // A channel of another kind under this path is as missing as one of another account.
    if (!row || row.kind !== kind) throw Errors.channelNotFound();
    return row;
  }

  /** Checks everything that needs more than the schema (DNS, the database) before anything is written. */
  async function checkReferences(accountId: string, body: UpdateChannelBody): Promise<void> {
    if (body.webhookUrl) await urlGuard.check(body.webhookUrl);
    // The model server is checked when saved, not only when the agent calls it; a name that does not resolve yet
    // (a model server started later, a name only the servers' network knows) is accepted and checked at each call.
    if (body.agentEngine?.kind === 'openai-compatible') {
      await urlGuard.check(body.agentEngine.baseUrl, 'agentEngine.baseUrl', { allowUnresolvable: true });
    }
    if (body.workingHours) validateWorkingHours(body.workingHours);
    if (body.knowledgeBaseId && !(await store.knowledgeBaseExists(accountId, body.knowledgeBaseId))) {
      throw Errors.knowledgeBaseRefNotFound();
    }
    if (body.actionIds && body.actionIds.length > 0) {
      const own = await store.ownActionIds(accountId, body.actionIds);
      const missing = body.actionIds.find((id) => !own.has(id));
      if (missing !== undefined) throw Errors.actionRefNotFound('actionIds', missing);
    }
  }

  return {
    async connect(accountId: string, kind: ChannelKind, body: ConnectChannelBody, audit: AuditContext): Promise<Channel> {
      await checkReferences(accountId, body);
      const now = clock.now();
      const messenger = isMessengerKind(kind) && body.credentials !== undefined;
      const row = await db.transaction(async (tx) => {
        const inserted = await storeOf(tx).insert({
        id: newChannelId(kind),
        accountId,
        kind,
        settings: DEFAULT_SETTINGS,
        agentEngine: { kind: 'knowledge-base' },
        ...(kind === 'widget' ? widgetChanges({}, undefined) : {}),
        ...changesOf(body, undefined),
        name: body.name,
        createdAt: now,
        updatedAt: now,
        });
        // A messenger's channel is recorded once its webhook is registered (below), with the credentials stored.
        if (!messenger) await recorded(tx, audit, 'channel.created', undefined, inserted);
        return inserted;
      });
      if (!isMessengerKind(kind) || !body.credentials) return view(row);
      // The channel exists first: Viber calls the URL back during set_webhook and expects a 200.
      let credentials: Credentials;
      try {
        credentials = await register(kind, row.id, body.credentials);
      } catch (error) {
        await store.delete(accountId, row.id);
        throw error;
      }
      const registered = await db.transaction(async (tx) => {
        const updated = await storeOf(tx).update(accountId, row.id, { credentials: { ...credentials } });
        await recorded(tx, audit, 'channel.created', undefined, updated ?? row);
        return updated;
      });
      return view(registered ?? row);
    },

    async get(accountId: string, kind: ChannelKind, id: string): Promise<Channel> {
      return view(await requireChannel(accountId, kind, id));
    },

    async list(accountId: string): Promise<{ channels: Channel[] }> {
      return { channels: (await store.list(accountId)).map(view) };
    },

    async update(accountId: string, kind: ChannelKind, id: string, body: UpdateChannelBody, audit: AuditContext): Promise<Channel> {
      const previous = await requireChannel(accountId, kind, id);
      await checkReferences(accountId, body);
      const changes = changesOf(body, previous);
      if (isMessengerKind(kind) && body.credentials) {
        // New credentials are registered before they are stored: a refusal changes nothing.
        changes.credentials = { ...(await register(kind, id, body.credentials)) };
        changes.connectorError = null;
        changes.connectorErrorAt = null;
      }
      const row = await db.transaction(async (tx) => {
        const updated = await storeOf(tx).update(accountId, id, { ...changes, updatedAt: clock.now() });
        if (updated) await recorded(tx, audit, 'channel.updated', previous, updated);
        return updated;
      });
      if (!row) throw Errors.channelNotFound();
      return view(row);
    },

    async remove(accountId: string, kind: ChannelKind, id: string, audit: AuditContext): Promise<{ success: true }> {
      const row = await requireChannel(accountId, kind, id);
      const deleted = await db.transaction(async (tx) => {
        const gone = await storeOf(tx).delete(accountId, id);
        if (gone) await recorded(tx, audit, 'channel.deleted', row, undefined);
        return gone;
      });
      if (!deleted) throw Errors.channelNotFound();
      // The messenger stops posting to a channel that is gone; a failure here does not keep the channel.
      if (isMessengerKind(kind) && row.credentials) {
        await messengers.unregister(kind, row.credentials).catch((error: unknown) => {
          logger.warn({ channelId: id, kind, err: (error as Error).message }, 'messenger webhook not unregistered');
        });
      }
      return { success: true };
    },

    /** The console's webhook test button: one sample `new_messages` event, the receiver's answer reported. */
    async testWebhook(accountId: string, kind: ChannelKind, id: string) {
      const row = await requireChannel(accountId, kind, id);
      if (!row.webhookUrl) throw Errors.webhookNotSet();
      const now = clock.now();
      const event = sampleNewMessagesEvent(
        { id: row.id, kind, settings: { ...DEFAULT_SETTINGS, ...row.settings } },
        { chatId: newId(), messageId: newId() },
        now,
      );
      const body = JSON.stringify(event);
      const headers = row.webhookSecret
        ? signatureHeaders(row.webhookSecret, `msg_test_${newId()}`, Math.floor(now.getTime() / 1000), body)
        : {};
      const result = await webhookClient.post(row.webhookUrl, body, headers);
      return { success: result.ok, status: result.status, ...(result.error ? { error: result.error } : {}) };
    },
  };
}

export type ChannelsService = ReturnType<typeof createChannelsService>;
