// The agent reply job's two fixed statements (agent-service.ts `reply`): what the job needs to know, read at once,
// and the reply written at once. The reply statement is the step-by-step transaction of a reply without a task
// trigger (which stays step by step, for its status change): the waiting messages settled, the reply stored unless
// the chat was paused or banned meanwhile, the chat touched, new_messages with its delivery, and for a messenger
// chat the send to the customer with its job.
import type { PreparedQuery, PreparedStatement } from '../db/client.ts';
import { rowShape } from '../db/columns.ts';
import { chats, messages } from '../db/schema.ts';
import { DELIVERIES_CHANNEL, EVENTS_CHANNEL } from '../events/outbox.ts';
import { JOBS_CHANNEL } from '../jobs/job-queue.ts';
import type { ChatRow } from '../chats/chats-store.ts';
import type { MessageRow } from '../messages/messages-store.ts';

const chatRow = rowShape<ChatRow>(chats);
const messageRow = rowShape<MessageRow>(messages);

const CONTEXT: PreparedStatement = {
  name: 'parley_agent_context_v1',
  text: `WITH chat AS (SELECT * FROM chats WHERE id = $2 AND account_id = $1),
  waiting AS (
    SELECT m.* FROM messages m WHERE m.chat_id = $2 AND m.awaiting_agent AND EXISTS (SELECT 1 FROM chat)),
  first AS (SELECT created_at, id FROM waiting ORDER BY created_at, id LIMIT 1),
  history AS (
    SELECT m.* FROM messages m, first WHERE m.chat_id = $2 AND (m.created_at, m.id) < (first.created_at, first.id)
    ORDER BY m.created_at DESC, m.id DESC LIMIT $3),
  parts AS (SELECT true AS waiting, * FROM waiting UNION ALL SELECT false, * FROM history)
  SELECT p.waiting, ${messageRow.select('p')}, ${chatRow.select('c')}
  FROM parts p CROSS JOIN chat c ORDER BY p.created_at, p.id`,
};

const REPLY: PreparedStatement = {
  name: 'parley_agent_reply_v3',
  text: `WITH settled AS (
    UPDATE messages SET awaiting_agent = false
    WHERE chat_id = $2 AND id IN (SELECT value::uuid FROM jsonb_array_elements_text($3::jsonb)) AND awaiting_agent
    RETURNING id),
  current AS (
    -- Paused or banned while the engine was thinking: the reply is dropped (the messages stay settled).
    SELECT id FROM chats WHERE id = $2 AND account_id = $1 AND NOT paused AND NOT banned AND EXISTS (SELECT 1 FROM settled)),
  reply AS (
    INSERT INTO messages (id, account_id, chat_id, role, origin, sender_name, text, fallback, greeting, created_at)
    SELECT $4, $1, id, 'assistant', 'agent', NULL, $5, $6, $16, $7 FROM current
    RETURNING *),
  touched AS (
    UPDATE chats SET last_text = reply.text, last_message_at = reply.created_at, updated_at = reply.created_at
    FROM reply WHERE chats.id = reply.chat_id
    RETURNING chats.*),
  event AS (
    INSERT INTO events (id, account_id, channel_id, chat_id, kind, payload)
    SELECT $8, account_id, channel_id, id, 'new_messages',
           jsonb_build_object(
             'event', 'new_messages',
             'chat', jsonb_build_object('id', id, 'name', dialog_name, 'uniqueId', unique_id,
                                        'externalChatId', external_chat_id, 'channelName', channel_kind),
             'messages', jsonb_build_array($9::jsonb),
             'settings', $10::jsonb,
             'timestamp', $11::text)
    FROM touched
    RETURNING id, account_id, channel_id),
  delivery AS (
    INSERT INTO deliveries (id, event_id, account_id, channel_id, next_attempt_at)
    SELECT $12, event.id, event.account_id, event.channel_id, now()
    FROM event JOIN channels ON channels.id = event.channel_id AND channels.webhook_url IS NOT NULL
    RETURNING 1),
  send AS (
    -- A messenger chat's reply goes out through its messenger (messengers/messenger-outbound.ts).
    INSERT INTO messenger_sends (id, account_id, channel_id, chat_id, message_id, created_at)
    SELECT $13::uuid, account_id, channel_id, id, $4, $7 FROM touched WHERE $13::uuid IS NOT NULL
    RETURNING id),
  send_job AS (
    INSERT INTO jobs (id, kind, payload, run_at)
    SELECT $14::uuid, 'messenger.send', jsonb_build_object('sendId', id), now() FROM send
    RETURNING 1)
  SELECT ${chatRow.select('t')}, ${messageRow.select('r')},
         pg_notify('${EVENTS_CHANNEL}', event.account_id || ':' || event.id) AS notified,
         (SELECT pg_notify('${DELIVERIES_CHANNEL}', '') FROM delivery LIMIT 1) AS deliveries_woken,
         (SELECT pg_notify('${JOBS_CHANNEL}', $15) FROM send_job LIMIT 1) AS jobs_woken
  FROM touched t JOIN reply r ON r.chat_id = t.id JOIN event ON true`,
};

/** What the reply job needs: the chat, its waiting customer messages and the history before them. */
export interface ReplyContext {
  chat: ChatRow;
  waiting: MessageRow[];
  history: MessageRow[];
}

export interface ReplyToWrite {
  accountId: string;
  chatId: string;
  waitingIds: readonly string[];
  messageId: string;
  text: string;
  fallback: boolean;
  /** The channel's greeting (no answer for the conversation's outcome). */
  greeting: boolean;
  at: Date;
  /** The webhook `messages[]` item of the reply. */
  webhookMessage: unknown;
  settings: unknown;
  eventId: string;
  deliveryId: string;
  /** Set for a messenger chat: the send to the customer and its job. */
  send: { id: string; jobId: string } | null;
}

/** `jobsNotice`: the job queue's NOTIFY payload (jobs/job-queue.ts `notifyPayload`). */
export function createReplyStore(query: PreparedQuery, jobsNotice: string) {
  return {
    /** Undefined when the chat is gone or no message waits for the agent. */
    async context(accountId: string, chatId: string, historyLimit: number): Promise<ReplyContext | undefined> {
      const rows = await query<Record<string, unknown> & { waiting: boolean }>(CONTEXT, [accountId, chatId, historyLimit]);
      const first = rows[0];
      if (!first) return undefined;
      const waiting = rows.filter((row) => row.waiting).map((row) => messageRow.pick(row, 'p'));
      if (waiting.length === 0) return undefined;
      return { chat: chatRow.pick(first, 'c'), waiting, history: rows.filter((row) => !row.waiting).map((row) => messageRow.pick(row, 'p')) };
    },

    /** The stored reply and the chat after it; undefined when nothing was written (answered elsewhere, paused, banned). */
    async write(reply: ReplyToWrite): Promise<{ chat: ChatRow; message: MessageRow } | undefined> {
      const [row] = await query<Record<string, unknown>>(REPLY, [
        reply.accountId,
        reply.chatId,
        JSON.stringify(reply.waitingIds),
        reply.messageId,
        reply.text,
        reply.fallback,
        reply.at.toISOString(),
        reply.eventId,
        JSON.stringify(reply.webhookMessage),
        JSON.stringify(reply.settings),
        reply.at.toISOString(),
        reply.deliveryId,
        reply.send?.id ?? null,
        reply.send?.jobId ?? null,
        jobsNotice,
        reply.greeting,
      ]);
      return row && { chat: chatRow.pick(row, 't'), message: messageRow.pick(row, 'r') };
    },
  };
}

export type ReplyStore = ReturnType<typeof createReplyStore>;
