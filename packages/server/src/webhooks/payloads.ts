// Webhook payloads, exactly the spec's Events → Payload shapes.
import type {
  AgentSettings,
  ChannelKind,
  DialogStatusChangedEvent,
  NewMessagesEvent,
  WebhookChat,
  WebhookMessage,
} from '@parley/contracts';

export function newMessagesEvent(input: {
  chat: WebhookChat;
  messages: WebhookMessage[];
  settings: AgentSettings;
  timestamp: Date;
}): NewMessagesEvent {
  return {
    event: 'new_messages',
    chat: input.chat,
    messages: input.messages,
    settings: input.settings,
    timestamp: input.timestamp.toISOString(),
  };
}

/** The event the console's webhook test sends: a customer message in a made-up chat of the channel. */
export function sampleNewMessagesEvent(
  channel: { id: string; kind: ChannelKind; settings: AgentSettings },
  ids: { chatId: string; messageId: string },
  now: Date,
): NewMessagesEvent {
  const externalChatId = 'webhook-test';
  const uniqueId = channel.kind === 'custom' ? `${channel.id}:${externalChatId}` : `${externalChatId}_${channel.id}`;
  return newMessagesEvent({
    chat: { id: ids.chatId, name: 'Test visitor', uniqueId, externalChatId, channelName: channel.kind },
    messages: [
      {
        id: ids.messageId,
        role: 'user',
        senderName: 'Test visitor',
        text: 'This is a test message sent by the webhook test button.',
        attachments: [],
        createdAt: now.toISOString(),
      },
    ],
    settings: channel.settings,
    timestamp: now,
  });
}

/** The webhook `chat` object of a stored chat. */
export function webhookChat(chat: {
  id: string;
  dialogName: string;
  uniqueId: string;
  externalChatId: string;
  channelKind: string;
}): WebhookChat {
  return {
    id: chat.id,
    name: chat.dialogName,
    uniqueId: chat.uniqueId,
    externalChatId: chat.externalChatId,
    channelName: chat.channelKind as ChannelKind,
  };
}

/** The webhook message object of a stored message (the attachment's `kind` stays internal). */
export function webhookMessage(message: {
  id: string;
  role: string;
  senderName: string | null;
  text: string;
  attachments: { contentType: string; url: string; fileSize: number; name: string }[];
  createdAt: Date;
}): WebhookMessage {
  return {
    id: message.id,
    role: message.role as WebhookMessage['role'],
    senderName: message.senderName,
    text: message.text,
    attachments: message.attachments.map(({ contentType, url, fileSize, name }) => ({ contentType, url, fileSize, name })),
    createdAt: message.createdAt.toISOString(),
  };
}

export type TaskStatusSource = { type: 'api' | 'trigger'; operatorEmail: null } | { type: 'manual'; operatorEmail: string };

export function dialogStatusChangedEvent(input: {
  eventId: string;
  chat: WebhookChat;
  settings: AgentSettings;
  done: boolean;
  source: TaskStatusSource;
  at: Date;
}): DialogStatusChangedEvent {
  const current = input.done ? 'done' : 'not_done';
  return {
    event: 'dialog_status_changed',
    eventId: input.eventId,
    timestamp: input.at.toISOString(),
    chat: input.chat,
    settings: input.settings,
    status: {
      type: 'task',
      previous: input.done ? 'not_done' : 'done',
      current,
      changedAt: input.at.toISOString(),
      source: input.source,
    },
  };
}
