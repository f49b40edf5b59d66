// Outgoing webhook payloads (spec, Events → Payload shapes; nested objects from Resources and their fields).
import { Type, type Static } from 'typebox';
import { CHANNEL_KINDS } from '../public/channel-kinds.ts';
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
  senderName: nullable(Type.String()),
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
