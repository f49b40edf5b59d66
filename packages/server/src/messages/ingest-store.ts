// The ingest statement: a batch of messages, each into its own chat, written by ONE SQL statement (a message is
// the chat created or found, the message inserted, the chat touched, its new_messages event and webhook delivery,
// the agent's reply job, the follow-through (a paused chat's flag, the alert jobs of a handoff or of an offline
// assignee) and the NOTIFYs; chat_counts and the overview by their statement triggers, once per batch).
// The rows and payloads are those of the step-by-step transaction in messages-service.ts (`recordStepByStep`),
// which the rare paths still use. One statement is one transaction: nothing of a message exists until it commits.
import type { PreparedQuery, PreparedStatement } from '../db/client.ts';
import { rowShape } from '../db/columns.ts';
import { chats, messages, type StoredAttachment } from '../db/schema.ts';
import { DELIVERIES_CHANNEL, EVENTS_CHANNEL } from '../events/outbox.ts';
import { JOBS_CHANNEL } from '../jobs/job-queue.ts';
import { assigneeAlertWantedSql } from '../alerts/alerts-store.ts';
import type { ChatRow } from '../chats/chats-store.ts';
import type { MessageRow } from './messages-store.ts';

/** One message of a batch (at most one per chat in a batch). */
export interface IngestRow {
  /** The id of the chat if it is created by this message. */
  chatId: string;
  accountId: string;
  channelId: string;
  channelKind: string;
  externalChatId: string;
  uniqueId: string;
  /** The name of a chat created by this message (unless `rename` is given). */
  dialogName: string;
  email: string | null;
  photoUrl: string | null;
  isGroup: boolean;
  /** The chat's new name (a customer message that names its sender). */
  rename: string | null;
  messageId: string;
  role: 'user' | 'assistant';
  origin: 'customer' | 'api';
  senderName: string | null;
  text: string;
  attachments: StoredAttachment[];
  externalId: string | null;
  /** ISO time of the message (its createdAt, the chat's activity and the event's timestamp). */
  at: string;
  /** The agent answers customer messages of this channel now, unless the chat is paused. */
  agentAnswers: boolean;
  /** The webhook `messages[]` item of the message (new_messages, customer messages only). */
  webhookMessage: unknown;
  /** The channel's agent settings (the event's `settings`). */
  settings: unknown;
  eventId: string;
  deliveryId: string;
  jobId: string;
}

export interface IngestResult {
  chat: ChatRow;
  message: MessageRow;
  /** The agent's reply job was queued (not only marked to run again by the worker that holds it). */
  jobQueued: boolean;
}

const chatRow = rowShape<ChatRow>(chats);
const messageRow = rowShape<MessageRow>(messages);

/**
 * `new`: chats may be created (INSERT … ON CONFLICT, which fires chats' statement triggers, chat_counts among them,
 * once for the batch). `known`: every chat of the batch was seen by this process, so it is only UPDATEd (no chats'
 * INSERT trigger fires); a row whose chat is not there after all comes back `missing` and goes again as `new`.
 */
export type IngestForm = 'new' | 'known';

function ingestStatement(form: IngestForm): PreparedStatement {
  const chatChange =
    form === 'new'
      ? `INSERT INTO chats (id, account_id, channel_id, channel_kind, external_chat_id, unique_id, dialog_name, last_text,
                       last_message_at, unread_count, email, photo_url, is_group, created_at, updated_at)
    SELECT t.target_chat_id, t.account_id, t.channel_id, t.channel_kind, t.external_chat_id, t.unique_id,
           coalesce(t.rename, t.dialog_name), t.text, t.at, CASE WHEN t.role = 'user' THEN 1 ELSE 0 END, t.email,
           t.photo_url, t.is_group, t.at, t.at
    FROM target t JOIN message m ON m.id = t.message_id
    ON CONFLICT (channel_id, external_chat_id) DO UPDATE SET
      last_text = excluded.last_text, last_message_at = excluded.last_message_at, updated_at = excluded.updated_at,
      unread_count = chats.unread_count + excluded.unread_count,
      -- Follow-through (issue #33): a customer message in a paused unassigned chat flags it again.
      needs_human = chats.needs_human OR (excluded.unread_count > 0 AND chats.paused AND chats.assignee_id IS NULL),
      dialog_name = coalesce((SELECT rename FROM input
                              WHERE input.channel_id = excluded.channel_id AND input.external_chat_id = excluded.external_chat_id),
                             chats.dialog_name)
    RETURNING *`
      : `UPDATE chats SET last_text = t.text, last_message_at = t.at, updated_at = t.at,
      unread_count = chats.unread_count + CASE WHEN t.role = 'user' THEN 1 ELSE 0 END,
      needs_human = chats.needs_human OR (t.role = 'user' AND chats.paused AND chats.assignee_id IS NULL),
      dialog_name = coalesce(t.rename, chats.dialog_name)
    FROM target t JOIN message m ON m.id = t.message_id
    WHERE chats.id = t.target_chat_id
    RETURNING chats.*`;
  return {
  name: `parley_ingest_${form}_v7`,
  text: `WITH input AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(
      n int, chat_id uuid, account_id uuid, channel_id text, channel_kind text, external_chat_id text, unique_id text,
      dialog_name text, email text, photo_url text, is_group boolean, rename text, message_id uuid, role text,
      origin text, sender_name text, text text, attachments jsonb, external_id text, at timestamptz, at_text text,
      agent_answers boolean, webhook_message jsonb, settings jsonb, event_id uuid, delivery_id uuid, job_id uuid)),
  channel AS (
    -- Held until the commit, so a delete of one waits for this statement; one deleted meanwhile is not here, and
    -- its message is ignored as for an unknown channel (no foreign-key error, no deadlock with the delete's cascade).
    SELECT id, search_config FROM channels WHERE id IN (SELECT channel_id FROM input) FOR KEY SHARE),
  known AS (
    SELECT input.n, chats.id, chats.banned, chats.paused, chats.needs_human, chats.assignee_id FROM input
    JOIN chats ON chats.channel_id = input.channel_id AND chats.external_chat_id = input.external_chat_id),
  target AS (
    -- A banned chat ignores the message (nothing is stored); a paused one stores it without the agent.
    SELECT input.*, channel.search_config, coalesce(known.id, input.chat_id) AS target_chat_id,
           input.role = 'user' AND input.agent_answers AND NOT coalesce(known.paused, false) AS awaiting
    FROM input JOIN channel ON channel.id = input.channel_id
    ${form === 'new' ? 'LEFT JOIN' : 'JOIN'} known ON known.n = input.n
    WHERE NOT coalesce(known.banned, false)),
  message AS (
    -- A repeated external id is ignored: no chat change, no event, no reply. The chat a new message names is
    -- inserted below in this same statement (foreign keys are checked at its end).
    -- search_config: the channel's text-search configuration (migration 0037), so the insert trigger has nothing to do.
    INSERT INTO messages (id, account_id, chat_id, role, origin, sender_name, text, attachments, external_id, awaiting_agent, created_at, search_config)
    SELECT message_id, account_id, target_chat_id, role, origin, sender_name, text, attachments, external_id, awaiting, at, search_config
    FROM target
    ON CONFLICT (chat_id, external_id) WHERE external_id IS NOT NULL DO NOTHING
    RETURNING *),
  chat AS (
    ${chatChange}),
  stored AS (
    SELECT t.n, t.message_id, t.event_id, t.delivery_id, t.job_id, t.account_id, t.role, t.webhook_message, t.settings, t.at_text,
           c.id AS chat_id, c.channel_id, c.dialog_name, c.unique_id, c.external_chat_id, c.channel_kind, m.awaiting_agent
    FROM target t JOIN message m ON m.id = t.message_id
    JOIN chat c ON c.channel_id = t.channel_id AND c.external_chat_id = t.external_chat_id),
  event AS (
    -- Customer messages only (rule 2: a team reply recorded through the API is sent nowhere).
    INSERT INTO events (id, account_id, channel_id, chat_id, kind, payload)
    SELECT event_id, account_id, channel_id, chat_id, 'new_messages',
           jsonb_build_object(
             'event', 'new_messages',
             'chat', jsonb_build_object('id', chat_id, 'name', dialog_name, 'uniqueId', unique_id,
                                        'externalChatId', external_chat_id, 'channelName', channel_kind),
             'messages', jsonb_build_array(webhook_message),
             'settings', settings,
             'timestamp', at_text)
    FROM stored WHERE role = 'user'
    RETURNING id, account_id, channel_id),
  delivery AS (
    INSERT INTO deliveries (id, event_id, account_id, channel_id, next_attempt_at)
    SELECT s.delivery_id, e.id, e.account_id, e.channel_id, now()
    FROM event e JOIN stored s ON s.event_id = e.id
    JOIN channels ON channels.id = e.channel_id AND channels.webhook_url IS NOT NULL
    RETURNING 1),
  job AS (
    -- The agent's reply job, one per chat (jobs/job-queue.ts enqueue with a key).
    INSERT INTO jobs (id, kind, payload, run_at, key)
    SELECT job_id, 'agent.reply', jsonb_build_object('accountId', account_id, 'chatId', chat_id), now(), 'agent.reply:' || chat_id
    FROM stored WHERE awaiting_agent
    ON CONFLICT (key) WHERE key IS NOT NULL DO UPDATE
    SET rerun = jobs.locked_until IS NOT NULL AND jobs.locked_until >= now(), run_at = least(jobs.run_at, now())
    RETURNING key, rerun),
  follow AS (
    -- Follow-through (issue #33, alerts/alert-queue.ts): a customer message in a chat with an assignee alerts them
    -- when offline (paused or not); in a paused chat unassigned and not flagged yet, it alerts as a handoff (the
    -- chat-tool webhook now, e-mails after $3).
    SELECT s.account_id, s.chat_id, s.job_id, k.assignee_id FROM stored s JOIN known k ON k.n = s.n
    WHERE s.role = 'user'
      AND CASE WHEN k.assignee_id IS NULL THEN k.paused AND NOT k.needs_human
               ELSE ${assigneeAlertWantedSql('k.id', 'k.assignee_id')} END),
  alert AS (
    INSERT INTO jobs (id, kind, payload, run_at)
    SELECT md5(f.job_id::text || a.kind)::uuid, a.kind, jsonb_build_object('accountId', f.account_id, 'chatId', f.chat_id) || a.extra, now() + a.delay
    FROM follow f CROSS JOIN LATERAL (
      SELECT 'alerts.webhook' AS kind, jsonb_build_object('reason', 'customer_message') AS extra, interval '0 seconds' AS delay
      WHERE f.assignee_id IS NULL
      UNION ALL
      SELECT 'alerts.email', jsonb_build_object('memberId', f.assignee_id), $3::interval) a
    RETURNING 1)
  SELECT i.n, ${chatRow.select('c')}, ${messageRow.select('m')},
         CASE WHEN e.id IS NOT NULL THEN pg_notify('${EVENTS_CHANNEL}', e.account_id || ':' || e.id) END AS notified,
         (SELECT pg_notify('${DELIVERIES_CHANNEL}', '') FROM delivery LIMIT 1) AS deliveries_woken,
         -- Other processes' job workers wake at the commit (a job only marked to rerun needs no one).
         (SELECT pg_notify('${JOBS_CHANNEL}', $2) FROM job WHERE NOT rerun LIMIT 1) AS jobs_woken,
         -- Alerts wake every process's workers, this one's too (an empty payload is no one's own).
         (SELECT pg_notify('${JOBS_CHANNEL}', '') FROM alert LIMIT 1) AS alerts_woken,
         coalesce(NOT j.rerun, false) AS "jobQueued",
         k.id IS NULL AS missing
  FROM input i LEFT JOIN known k ON k.n = i.n
  LEFT JOIN stored s ON s.n = i.n LEFT JOIN chat c ON c.id = s.chat_id LEFT JOIN message m ON m.id = s.message_id
  LEFT JOIN event e ON e.id = s.event_id
  LEFT JOIN job j ON j.key = 'agent.reply:' || s.chat_id`,
  };
}

const INGEST = { new: ingestStatement('new'), known: ingestStatement('known') } as const;

type ResultRow = Record<string, unknown> & { n: number; jobQueued: boolean; missing: boolean };

/**
 * `jobsNotice`: the job queue's NOTIFY payload (jobs/job-queue.ts `notifyPayload`); `alertEmailDelayMs`:
 * ALERT_EMAIL_DELAY_SECONDS, the wait of the follow-through's alert e-mails.
 */
export function createIngestStore(query: PreparedQuery, jobsNotice: string, alertEmailDelayMs = 60_000) {
  const alertDelay = `${alertEmailDelayMs} milliseconds`;
  return {
    /**
     * Writes the batch; per row, the stored chat and message, undefined when the message was ignored (its channel
     * is gone among the reasons), or `missing` (form `known` only) when its chat was not there: nothing of it was
     * written.
     */
    async ingest(rows: readonly IngestRow[], form: IngestForm = 'new'): Promise<(IngestResult | 'missing' | undefined)[]> {
      const input = rows.map((row, n) => ({
        n,
        chat_id: row.chatId,
        account_id: row.accountId,
        channel_id: row.channelId,
        channel_kind: row.channelKind,
        external_chat_id: row.externalChatId,
        unique_id: row.uniqueId,
        dialog_name: row.dialogName,
        email: row.email,
        photo_url: row.photoUrl,
        is_group: row.isGroup,
        rename: row.rename,
        message_id: row.messageId,
        role: row.role,
        origin: row.origin,
        sender_name: row.senderName,
        text: row.text,
        attachments: row.attachments,
        external_id: row.externalId,
        at: row.at,
        at_text: row.at,
        agent_answers: row.agentAnswers,
        webhook_message: row.webhookMessage,
        settings: row.settings,
        event_id: row.eventId,
        delivery_id: row.deliveryId,
        job_id: row.jobId,
      }));
      const result = await query<ResultRow>(INGEST[form], [JSON.stringify(input), jobsNotice, alertDelay]);
      const byRow = new Map(result.map((row) => [Number(row.n), row]));
      return rows.map((_, n) => {
        const row = byRow.get(n);
        if (!row) throw new Error(`ingest: no result for row ${n}`);
        if (form === 'known' && row.missing) return 'missing';
        if (row['m.id'] === null) return undefined;
        return { chat: chatRow.pick(row, 'c'), message: messageRow.pick(row, 'm'), jobQueued: row.jobQueued };
      });
    },
  };
}

export type IngestStore = ReturnType<typeof createIngestStore>;
