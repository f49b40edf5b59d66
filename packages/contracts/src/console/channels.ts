// Console channels (docs/architecture.md, Console API → Channel): every kind, its agent settings, engine, hours.
import { Type, type Static, type TObject, type TOptional, type TProperties, type TUnsafe } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { CHANNEL_KINDS, type ChannelKind } from '../public/channel-kinds.ts';
import { route } from '../route.ts';
import { nullable, object, stringEnum, Timestamp } from '../schema.ts';
import { AgentSettings } from '../webhooks/events.ts';
import { ConsoleErrors, Uuid } from './common.ts';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
const Clock = (description: string) => Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$', description });

/** Weekly hours in a time zone; outside them the agent is silent and the auto-reply is sent. */
export const WorkingHours = object({
  timeZone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Berlin' }),
  intervals: Type.Array(
    object({ day: stringEnum(WEEKDAYS), from: Clock('HH:MM, local time'), to: Clock('HH:MM, after `from`; 24:00 = midnight') }),
    { maxItems: 70 },
  ),
});
export type WorkingHours = Static<typeof WorkingHours>;

const EngineKnowledgeBase = object({
  kind: Type.Literal('knowledge-base'),
  answerThreshold: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'lowest confidence (0–1) of the best entry that answers; unset: the calibrated default (docs/decisions.md)',
    }),
  ),
});
const EngineOpenAiInput = object({
  kind: Type.Literal('openai-compatible'),
  baseUrl: Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000, description: 'e.g. https://api.openai.com/v1' }),
  model: Type.String({ minLength: 1, maxLength: 200 }),
  apiKey: Type.Optional(
    // Sent as `Authorization: Bearer <apiKey>`: printable ASCII without spaces, or every call would fail.
    Type.String({ minLength: 1, maxLength: 500, pattern: '^[\\x21-\\x7E]+$', description: 'write-only; printable ASCII, no spaces' }),
  ),
  timeoutSeconds: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 300, default: 30, description: 'time limit of one request to the model server' }),
  ),
  transcriptionModel: Type.Optional(
    nullable(Type.String({ minLength: 1, maxLength: 200, description: 'voice messages go through /audio/transcriptions with this model' })),
  ),
});
export const AgentEngineInput = Type.Union([EngineKnowledgeBase, EngineOpenAiInput]);
export type AgentEngineInput = Static<typeof AgentEngineInput>;
export const AgentEngineView = Type.Union([
  EngineKnowledgeBase,
  object({
    kind: Type.Literal('openai-compatible'),
    baseUrl: Type.String(),
    model: Type.String(),
    timeoutSeconds: Type.Integer(),
    transcriptionModel: nullable(Type.String()),
    apiKeySet: Type.Boolean({ description: 'an API key is stored (it is never shown)' }),
  }),
]);
export type AgentEngineView = Static<typeof AgentEngineView>;

/** A Telegram bot token as BotFather gives it: `<bot id>:<secret>`. */
export const TELEGRAM_BOT_TOKEN_PATTERN = '^[0-9]{3,20}:[A-Za-z0-9_-]{20,100}$';

/** What the owner types into Meta's dashboard as the webhook's verify token (Meta answers it back on the GET check). */
const VerifyToken = Type.String({
  minLength: 8,
  maxLength: 200,
  pattern: '^[\\x21-\\x7E]+$',
  description: "typed by the owner into Meta's dashboard too; printable ASCII, no spaces",
});

/** Credentials of each messenger kind (write-only, except the Meta kinds' `verifyToken`, shown back in `verifyToken`). */
export const ChannelCredentials = {
  custom: undefined,
  widget: undefined,
  telegram: object({ botToken: Type.String({ pattern: TELEGRAM_BOT_TOKEN_PATTERN, description: 'from BotFather' }) }),
  whatsapp: object({
    phoneNumberId: Type.String({ minLength: 1, maxLength: 100 }),
    accessToken: Type.String({ minLength: 1, maxLength: 1000 }),
    appSecret: Type.String({ minLength: 1, maxLength: 200 }),
    verifyToken: VerifyToken,
  }),
  facebook: object({
    pageId: Type.String({ minLength: 1, maxLength: 100 }),
    pageAccessToken: Type.String({ minLength: 1, maxLength: 1000 }),
    appSecret: Type.String({ minLength: 1, maxLength: 200 }),
    verifyToken: VerifyToken,
  }),
  instagram: object({
    accountId: Type.String({ minLength: 1, maxLength: 100 }),
    accessToken: Type.String({ minLength: 1, maxLength: 1000 }),
    appSecret: Type.String({ minLength: 1, maxLength: 200 }),
    verifyToken: VerifyToken,
  }),
  viber: object({ authToken: Type.String({ minLength: 1, maxLength: 200 }) }),
} as const;

// --- Chat widget (docs/architecture.md, Chat widget) ------------------------------------------------------------------

export const PRE_CHAT_FIELD = ['required', 'optional'] as const;
export type PreChatField = (typeof PRE_CHAT_FIELD)[number];

/** The form a visitor fills in before the first message: its answers are the chat's name and e-mail. */
export const PreChatForm = object({
  enabled: Type.Boolean({ description: 'the form is shown before the first message' }),
  name: stringEnum(PRE_CHAT_FIELD, { description: "the visitor's name: the chat's `dialogName`" }),
  email: stringEnum(PRE_CHAT_FIELD, { description: "the visitor's e-mail: the chat's `email` (CRM sync finds the contact by it)" }),
});
export type PreChatForm = Static<typeof PreChatForm>;

/** Settings of a new widget channel, for every field the connect body leaves out. */
export const WIDGET_DEFAULTS = {
  allowedOrigins: [] as string[],
  title: 'Chat with us',
  color: '#2563eb',
  position: 'right' as 'right' | 'left',
  launcherText: 'Chat',
  greeting: '',
  requireVerifiedIdentity: false,
  messagesPerMinute: 10,
  newVisitorsPerIpPerMinute: 20,
  maxMessageLength: 2000,
  preChatForm: { enabled: false, name: 'optional', email: 'required' } as PreChatForm,
};

const widgetFields = {
  allowedOrigins: Type.Array(
    Type.String({ pattern: '^https?://[^/?#\\s@]+$', maxLength: 300, description: 'scheme://host[:port], no path, e.g. https://shop.example' }),
    { maxItems: 50, description: 'origins whose pages may embed the widget; empty: it shows nowhere' },
  ),
  title: Type.String({ minLength: 1, maxLength: 60, description: "the frame's heading" }),
  color: Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'accent colour, #rrggbb' }),
  position: stringEnum(['right', 'left'] as const, { description: 'bottom corner of the launcher' }),
  launcherText: Type.String({ minLength: 1, maxLength: 40, description: "the launcher button's visible text" }),
  greeting: Type.String({ maxLength: 1000, description: 'shown in the frame before the first message' }),
  requireVerifiedIdentity: Type.Boolean({ description: 'only visitors identified with a valid identifierHash may chat' }),
  messagesPerMinute: Type.Integer({ minimum: 1, maximum: 120, description: 'messages per visitor per minute' }),
  newVisitorsPerIpPerMinute: Type.Integer({ minimum: 1, maximum: 1000, description: 'new visitors per IP address per minute' }),
  maxMessageLength: Type.Integer({ minimum: 1, maximum: 10_000, description: 'characters per visitor message' }),
  preChatForm: PreChatForm,
};

/** Widget settings in a connect or change body (changed fields only); `identitySecret` is write-only. */
export const WidgetSettingsInput = object({
  ...optional(widgetFields),
  preChatForm: Type.Optional(object(optional(PreChatForm.properties), { description: 'changed fields only' })),
  identitySecret: Type.Optional(
    nullable(Type.String({ minLength: 16, maxLength: 200, description: 'write-only; HMAC-SHA256 key of identifierHash' })),
  ),
});
export type WidgetSettingsInput = Static<typeof WidgetSettingsInput>;

/** Widget settings, console view: the secret is never shown; `snippet` is the tag to paste into a page. */
export const WidgetSettingsView = object({
  ...widgetFields,
  identitySecretSet: Type.Boolean(),
  snippet: Type.String({ description: '<script src="{PUBLIC_URL}/widget.js" data-channel="{channelId}" async></script>' }),
});
export type WidgetSettingsView = Static<typeof WidgetSettingsView>;

export const CHANNEL_NAME_MAX = 100;
export const AUTO_REPLY_MAX = 2000;
export const HANDOFF_MESSAGE_MAX = 2000;
/** The knowledge-base engine hands a chat to the team instead of its n-th fallback in a row (0: never). */
export const HANDOFF_AFTER_FALLBACKS_DEFAULT = 2;
export const HANDOFF_AFTER_FALLBACKS_MAX = 10;
export const CLARIFY_CHOICES_DEFAULT = 3;
export const CLARIFY_CHOICES_MAX = 5;
export const CLARIFY_PROMPT_MAX = 500;
export const CHANNEL_ACTIONS_MAX = 50;

function optional<T extends TProperties>(properties: T) {
  return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof T]: ReturnType<typeof Type.Optional<T[K]>>;
  };
}

const editable = {
  name: Type.String({ minLength: 1, maxLength: CHANNEL_NAME_MAX }),
  webhookUrl: nullable(Type.String({ minLength: 1, maxLength: 2000, description: 'http or https URL' })),
  webhookSecret: nullable(
    Type.String({ minLength: 16, maxLength: 200, description: 'write-only; when set, deliveries are signed (Standard Webhooks)' }),
  ),
  disableAgentResponses: Type.Boolean(),
  settings: object(optional(AgentSettings.properties), { description: 'changed fields only' }),
  knowledgeBaseId: nullable(Uuid),
  agentEngine: AgentEngineInput,
  workingHours: nullable(WorkingHours),
  autoReply: nullable(Type.String({ minLength: 1, maxLength: AUTO_REPLY_MAX })),
  handoffMessage: nullable(
    Type.String({
      minLength: 1,
      maxLength: HANDOFF_MESSAGE_MAX,
      description: "sent when the agent hands a chat to the team; null: a default sentence in the channel's aiLang",
    }),
  ),
  handoffAfterFallbacks: Type.Integer({
    minimum: 0,
    maximum: HANDOFF_AFTER_FALLBACKS_MAX,
    description: `knowledge-base engine: a fallback that would be the n-th in a row hands the chat to the team instead; 0: never (default ${HANDOFF_AFTER_FALLBACKS_DEFAULT})`,
  }),
  clarifyChoices: Type.Integer({
    minimum: 0,
    maximum: CLARIFY_CHOICES_MAX,
    description: `knowledge-base engine: when unsure, it offers at most this many options to choose from; 0: never asks (default ${CLARIFY_CHOICES_DEFAULT})`,
  }),
  clarifyPrompt: nullable(
    Type.String({
      minLength: 1,
      maxLength: CLARIFY_PROMPT_MAX,
      description: "the sentence before the options; null: a default sentence in the channel's aiLang",
    }),
  ),
  actionIds: Type.Array(Uuid, {
    maxItems: CHANNEL_ACTIONS_MAX,
    uniqueItems: true,
    description: "the account's actions the channel's agent may use (default none)",
  }),
};

const { name, ...rest } = editable;

// The static type covers every kind (credentials, when the kind has them, are string fields); the schema
// of each kind is exact: messenger kinds require their own credentials, the others accept none.
type WithCredentials<T extends TProperties> = TObject<
  T & { credentials: TOptional<TUnsafe<Record<string, string>>>; widget: TOptional<typeof WidgetSettingsInput> }
>;
const connectProps = { name, ...optional(rest) };
const updateProps = optional(editable);

function connectBody(kind: ChannelKind): WithCredentials<typeof connectProps> {
  const credentials = ChannelCredentials[kind];
  const schema = object({
    ...connectProps,
    ...(credentials ? { credentials } : {}),
    ...(kind === 'widget' ? { widget: Type.Optional(WidgetSettingsInput) } : {}),
  });
  return schema as unknown as WithCredentials<typeof connectProps>;
}
function updateBody(kind: ChannelKind): WithCredentials<typeof updateProps> {
  const credentials = ChannelCredentials[kind];
  const schema = object({
    ...updateProps,
    ...(credentials ? { credentials: Type.Optional(credentials) } : {}),
    ...(kind === 'widget' ? { widget: Type.Optional(WidgetSettingsInput) } : {}),
  });
  return schema as unknown as WithCredentials<typeof updateProps>;
}

/** Channel, console view. Secrets (webhook secret, engine API key, messenger credentials) are never shown. */
export const Channel = object({
  id: Type.String({ description: 'API channel IDs start with `cc:`' }),
  type: stringEnum(CHANNEL_KINDS),
  name: Type.String(),
  webhookUrl: nullable(Type.String()),
  webhookSecretSet: Type.Boolean(),
  disableAgentResponses: Type.Boolean(),
  settings: AgentSettings,
  knowledgeBaseId: nullable(Type.String()),
  agentEngine: AgentEngineView,
  workingHours: nullable(WorkingHours),
  autoReply: nullable(Type.String()),
  handoffMessage: nullable(Type.String({ description: "sent when the agent hands a chat to the team; null: a default sentence in the channel's aiLang" })),
  handoffAfterFallbacks: Type.Integer({ description: 'knowledge-base engine: fallbacks in a row before it hands the chat to the team; 0: never' }),
  clarifyChoices: Type.Integer({ description: 'knowledge-base engine: at most this many options when it asks the customer to choose; 0: never asks' }),
  clarifyPrompt: nullable(Type.String({ description: "the sentence before the options; null: a default sentence in the channel's aiLang" })),
  actionIds: Type.Array(Type.String(), { description: "the account's actions the channel's agent may use" }),
  credentialsSet: Type.Boolean({ description: 'messenger credentials are stored' }),
  inboundUrl: nullable(
    Type.String({ description: "messenger kinds: where the messenger posts its updates (paste it into Meta's dashboard); null otherwise" }),
  ),
  verifyToken: nullable(
    Type.String({ description: "Meta kinds: the verify token to paste into Meta's dashboard beside `inboundUrl`; null otherwise" }),
  ),
  connectorError: nullable(
    object({
      message: Type.String({ description: "the messenger's last refusal or failure (a blocked bot, a closed 24-hour window…)" }),
      at: Timestamp,
    }),
  ),
  widget: Type.Optional(WidgetSettingsView),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Channel = Static<typeof Channel>;

export type ConnectChannelBody = Static<WithCredentials<typeof connectProps>>;
export type UpdateChannelBody = Static<WithCredentials<typeof updateProps>>;

const TypeParam = stringEnum(CHANNEL_KINDS, { description: 'channel kind' });
const ChannelId = Type.String({ minLength: 1, maxLength: 200 });

function kindRoutes(kind: ChannelKind) {
  return {
    connect: route({
      method: 'POST',
      url: `/channel/${kind}/connect/`,
      operationId: `connect_${kind}`,
      role: 'admin',
      summary: `Connect a ${kind} channel`,
      tags: ['Channels'],
      schema: { body: connectBody(kind), response: { 201: Channel, ...ConsoleErrors } },
    }),
    update: route({
      method: 'PUT',
      url: `/channel/${kind}/:id/`,
      operationId: `update_${kind}`,
      role: 'admin',
      summary: `Change a ${kind} channel (partial)`,
      tags: ['Channels'],
      schema: { params: object({ id: ChannelId }), body: updateBody(kind), response: { 200: Channel, ...ConsoleErrors } },
    }),
  };
}

export const channelKindRoutes = Object.fromEntries(CHANNEL_KINDS.map((kind) => [kind, kindRoutes(kind)])) as {
  [K in ChannelKind]: ReturnType<typeof kindRoutes>;
};

/** An origin that tried to show a widget channel it does not allow (issue #34). */
export const EmbedAttempt = object({
  origin: Type.String({ description: 'scheme://host[:port] of the page that tried' }),
  attempts: Type.Integer({ description: 'page loads refused' }),
  firstAt: Timestamp,
  lastAt: Timestamp,
});
export type EmbedAttempt = Static<typeof EmbedAttempt>;

export const channelRoutes = {
  listEmbedAttempts: route({
    method: 'GET',
    url: '/channel/widget/:id/embed-attempts/',
    operationId: 'listEmbedAttempts',
    role: 'agent',
    summary: 'Origins refused by a widget channel',
    description: 'Pages whose origin the channel does not allow that tried to show the widget, newest first (at most 50 origins); an origin allowed since is left out.',
    tags: ['Channels'],
    schema: { params: object({ id: ChannelId }), response: { 200: object({ embedAttempts: Type.Array(EmbedAttempt) }), ...ConsoleErrors } },
  }),
  getChannel: route({
    method: 'GET',
    url: '/channel/:type/:id/',
    operationId: 'getChannel',
    role: 'agent',
    summary: 'A channel',
    tags: ['Channels'],
    schema: { params: object({ type: TypeParam, id: ChannelId }), response: { 200: Channel, ...ConsoleErrors } },
  }),
  deleteChannel: route({
    method: 'DELETE',
    url: '/channel/:type/:id/',
    operationId: 'deleteChannel',
    role: 'admin',
    summary: 'Delete a channel with its chats',
    tags: ['Channels'],
    schema: {
      params: object({ type: TypeParam, id: ChannelId }),
      response: { 200: object({ success: Type.Literal(true) }), ...ConsoleErrors },
    },
  }),
  listChannels: route({
    method: 'GET',
    url: '/channels/all/',
    operationId: 'listChannels',
    role: 'agent',
    summary: "The account's channels",
    tags: ['Channels'],
    schema: { response: { 200: object({ channels: Type.Array(Channel) }), 401: ErrorBody } },
  }),
  testWebhook: route({
    method: 'POST',
    url: '/webhooks/:type/:id/test',
    operationId: 'testWebhook',
    role: 'admin',
    summary: "Send a sample new_messages event to the channel's webhook URL",
    description: '`success` is true when the receiver answered 2xx within 2 s; `status` is its HTTP status, null when none came.',
    tags: ['Webhooks'],
    schema: {
      params: object({ type: TypeParam, id: ChannelId }),
      response: {
        200: object({ success: Type.Boolean(), status: nullable(Type.Integer()), error: Type.Optional(Type.String()) }),
        ...ConsoleErrors,
      },
    },
  }),
} as const;
