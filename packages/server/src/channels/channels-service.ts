// Channels of every kind with their agent settings, engine, working hours and webhook (console API).
import { randomBytes } from 'node:crypto';
import type {
  AgentEngineInput,
  AgentSettings,
  Channel,
  ChannelKind,
  ConnectChannelBody,
  UpdateChannelBody,
  WidgetSettingsInput,
  WidgetSettingsView,
  WorkingHours,
} from '@parley/contracts';
import { WIDGET_DEFAULTS } from '@parley/contracts';
import type { StoredAgentEngine, StoredWidgetSettings } from '../db/schema.ts';
import { Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { signatureHeaders } from '../webhooks/signing.ts';
import { normalizeOrigin } from './widget/origins.ts';
import type { WebhookClient } from '../webhooks/http-client.ts';
import { sampleNewMessagesEvent } from '../webhooks/payloads.ts';
import type { UrlGuard } from '../webhooks/url-guard.ts';
import type { ChannelChanges, ChannelRow, ChannelsStore } from './channels-store.ts';

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

/** The tag a site owner pastes into a page (DESIGN.md, Chat widget). */
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

export function toChannelView(row: ChannelRow, publicUrl = ''): Channel {
  const engine = row.agentEngine;
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
        : { kind: 'knowledge-base' },
    workingHours: row.workingHours,
    autoReply: row.autoReply,
    credentialsSet: row.credentials !== null,
    ...(row.kind === 'widget' ? { widget: widgetView(row, publicUrl) } : {}),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export interface ChannelsServiceDeps {
  store: ChannelsStore;
  clock: Clock;
  urlGuard: Pick<UrlGuard, 'check'>;
  webhookClient: Pick<WebhookClient, 'post'>;
  /** PUBLIC_URL: the widget snippet points at it. */
  publicUrl?: string;
}

export function createChannelsService({ store, clock, urlGuard, webhookClient, publicUrl = '' }: ChannelsServiceDeps) {
  const view = (row: ChannelRow) => toChannelView(row, publicUrl);

  async function requireChannel(accountId: string, kind: ChannelKind, id: string): Promise<ChannelRow> {
    const row = await store.find(accountId, id);
    // A channel of another kind under this path is as missing as one of another account.
    if (!row || row.kind !== kind) throw Errors.channelNotFound();
    return row;
  }

  /** Checks everything that needs more than the schema (DNS, the database) before anything is written. */
  async function checkReferences(accountId: string, body: UpdateChannelBody): Promise<void> {
    if (body.webhookUrl) await urlGuard.check(body.webhookUrl);
    if (body.workingHours) validateWorkingHours(body.workingHours);
    if (body.knowledgeBaseId && !(await store.knowledgeBaseExists(accountId, body.knowledgeBaseId))) {
      throw Errors.knowledgeBaseRefNotFound();
    }
  }

  /** The engine as stored, and what happens to its API key (kept when a change does not give a new one). */
  function engineChanges(input: AgentEngineInput, previous: ChannelRow | undefined): ChannelChanges {
    if (input.kind === 'knowledge-base') return { agentEngine: { kind: 'knowledge-base' }, agentApiKey: null };
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
    const { identitySecret, ...fields } = input;
    const widget = { ...widgetSettingsOf(previous ?? { widget: null }), ...fields };
    widget.allowedOrigins = [...new Set(widget.allowedOrigins.map((origin) => normalizeOrigin(origin) ?? origin.toLowerCase()))];
    const secret = identitySecret === undefined ? (previous?.widgetIdentitySecret ?? null) : identitySecret;
    if (widget.requireVerifiedIdentity && secret === null) throw Errors.widgetIdentitySecretMissing();
    return { widget, widgetIdentitySecret: secret };
  }

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
    if (body.credentials !== undefined) changes.credentials = body.credentials;
    if (body.widget !== undefined) Object.assign(changes, widgetChanges(body.widget, previous));
    return changes;
  }

  return {
    async connect(accountId: string, kind: ChannelKind, body: ConnectChannelBody): Promise<Channel> {
      await checkReferences(accountId, body);
      const now = clock.now();
      const row = await store.insert({
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
      return view(row);
    },

    async get(accountId: string, kind: ChannelKind, id: string): Promise<Channel> {
      return view(await requireChannel(accountId, kind, id));
    },

    async list(accountId: string): Promise<{ channels: Channel[] }> {
      return { channels: (await store.list(accountId)).map(view) };
    },

    async update(accountId: string, kind: ChannelKind, id: string, body: UpdateChannelBody): Promise<Channel> {
      const previous = await requireChannel(accountId, kind, id);
      await checkReferences(accountId, body);
      const row = await store.update(accountId, id, { ...changesOf(body, previous), updatedAt: clock.now() });
      if (!row) throw Errors.channelNotFound();
      return view(row);
    },

    async remove(accountId: string, kind: ChannelKind, id: string): Promise<{ success: true }> {
      await requireChannel(accountId, kind, id);
      if (!(await store.delete(accountId, id))) throw Errors.channelNotFound();
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
