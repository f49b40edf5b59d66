// Outgoing webhook payloads (spec, Events → Payload shapes; nested objects from Resources and their fields).
import { Type, type Static } from 'typebox';
import { CHANNEL_KINDS } from '../public/channel-kinds.ts';
import { DEFAULT_SENDER_NAME } from '../public/sender.ts';
import { nullable, object, stringEnum, Timestamp } from '../schema.ts';

export const WebhookChat = object({
  id: Type.String(),
  name: Type.String(),
  uniqueId: Type.String(),
  externalChatId: Type.Optional(Type.String()),
  channelName: stringEnum(CHANNEL_KINDS),
});
export type WebhookChat = Static<typeof WebhookChat>;

export const Attachment = object({
  contentType: Type.String(),
  url: Type.String(),
  fileSize: Type.Integer({ minimum: 0 }),
  name: Type.String(),
});

export const WebhookMessage = object({
  id: Type.String(),
  role: stringEnum(['user', 'assistant'] as const),
  senderName: nullable(
    Type.String({
      description: `A customer message's \`senderName\` (\`${DEFAULT_SENDER_NAME}\` when none was given); null for an agent reply, the member's name for a team reply from the Inbox`,
    }),
  ),
  text: Type.String(),
  attachments: Type.Array(Attachment),
  createdAt: Timestamp,
});
export type WebhookMessage = Static<typeof WebhookMessage>;

export const AI_LANG_PATTERN = '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$';

/** The agent settings of a channel (spec, Webhook settings object). */
export const AgentSettings = object({
  behavior: Type.String({ maxLength: 4000, description: 'Behavior instructions' }),
  role: Type.String({ maxLength: 1000, description: "Agent's role" }),
  task: Type.String({ maxLength: 2000, description: "Agent's task" }),
  greeting: Type.String({ maxLength: 1000 }),
  isActive: Type.Boolean({ description: 'Agent switched on in channel settings' }),
  aiLang: Type.String({ pattern: AI_LANG_PATTERN, maxLength: 16, description: "Agent's language (ISO 639-1 code)" }),
});
export type AgentSettings = Static<typeof AgentSettings>;

export const NewMessagesEvent = object({
  event: Type.Literal('new_messages'),
  chat: WebhookChat,
  messages: Type.Array(WebhookMessage),
  settings: AgentSettings,
  timestamp: Timestamp,
});
export type NewMessagesEvent = Static<typeof NewMessagesEvent>;

export const TaskTriggerEvent = object({
  event: Type.Literal('task_trigger'),
  chat: WebhookChat,
  message: WebhookMessage,
  summary: nullable(Type.String()),
  settings: AgentSettings,
  timestamp: Timestamp,
});
export type TaskTriggerEvent = Static<typeof TaskTriggerEvent>;

export const TaskStatus = stringEnum(['done', 'not_done'] as const);

export const DialogStatusChangedEvent = object({
  event: Type.Literal('dialog_status_changed'),
  eventId: Type.String(),
  timestamp: Timestamp,
  chat: WebhookChat,
  settings: AgentSettings,
  status: object({
    type: Type.Literal('task'),
    previous: TaskStatus,
    current: TaskStatus,
    changedAt: Timestamp,
    source: object({
      type: stringEnum(['trigger', 'manual', 'api'] as const),
      operatorEmail: nullable(Type.String()),
    }),
  }),
});
export type DialogStatusChangedEvent = Static<typeof DialogStatusChangedEvent>;

export type WebhookEvent = NewMessagesEvent | TaskTriggerEvent | DialogStatusChangedEvent;

/** Why the agent handed a chat to the team: the model's `hand_off` tool, the customer asked for a person, fallbacks in a row. */
export const HANDOFF_REASONS = ['model', 'customer_request', 'fallbacks'] as const;
export type HandoffReason = (typeof HANDOFF_REASONS)[number];

/**
 * The agent handed a chat to the team (docs/architecture.md, Handoff to the team). In the event feed and the console's live
 * stream only: never sent to a webhook (webhooks stay the spec's three events).
 */
export const ChatHandedOffEvent = object({
  event: Type.Literal('chat_handed_off'),
  chat: WebhookChat,
  reason: stringEnum(HANDOFF_REASONS),
  timestamp: Timestamp,
});
export type ChatHandedOffEvent = Static<typeof ChatHandedOffEvent>;

/** What the event feed holds: the webhook events and the feed's own (never delivered to a webhook). */
export type FeedEventPayload = WebhookEvent | ChatHandedOffEvent;

const WEBHOOK_HEADERS = [
  { name: 'User-Agent', description: 'Always `API-Gate-Webhook/1.0`', schema: Type.String({ example: 'API-Gate-Webhook/1.0' }) },
  {
    name: 'webhook-id',
    description: 'Only when the channel has a webhook secret (Standard Webhooks): the delivery ID, the same on every retry',
    schema: Type.String(),
  },
  {
    name: 'webhook-timestamp',
    description: 'Only with a webhook secret: Unix time in seconds of this attempt',
    schema: Type.String({ pattern: '^[0-9]+$' }),
  },
  {
    name: 'webhook-signature',
    description:
      'Only with a webhook secret: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`; a secret ' +
      'written `whsec_<base64>` is used as its decoded bytes, any other as UTF-8',
    schema: Type.String({ pattern: '^v1,' }),
  },
] as const;

const DELIVERY =
  ' Sent as `POST` with a JSON body to the channel\'s webhook URL; answer 2xx within 2 seconds, otherwise it is ' +
  'retried (3 attempts, 2 s and 4 s apart). Events may arrive more than once and out of order. Fields may be ' +
  'added to any object at any time.';

/** The outgoing webhooks as the public document publishes them (`components.schemas` and `x-webhooks`). */
export const webhookDocs = [
  {
    event: 'new_messages',
    schemaName: 'NewMessagesEvent',
    schema: NewMessagesEvent,
    summary: 'New messages in a chat: a customer wrote, or the agent or the team replied',
    description:
      'A customer message (`role: user`) or a message delivered to the customer (`role: assistant`: the agent\'s ' +
      'reply, a team reply from the Inbox). Deduplicate by `messages[].id`.' + DELIVERY,
    headers: WEBHOOK_HEADERS,
  },
  {
    event: 'task_trigger',
    schemaName: 'TaskTriggerEvent',
    schema: TaskTriggerEvent,
    summary: "The agent decided its task is complete and the trigger fired",
    description: '`message` is the customer\'s last message.' + DELIVERY,
    headers: WEBHOOK_HEADERS,
  },
  {
    event: 'dialog_status_changed',
    schemaName: 'DialogStatusChangedEvent',
    schema: DialogStatusChangedEvent,
    summary: 'The task status of a chat changed between done and not done',
    description:
      '`status.source.type` says who changed it: `api` (done/undone of the public API), `trigger` (the agent\'s ' +
      'task trigger), `manual` (a team member in the Inbox, `operatorEmail` set). Deduplicate by `eventId`.' + DELIVERY,
    headers: WEBHOOK_HEADERS,
  },
] as const;
