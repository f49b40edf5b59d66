// The transactional outbox: events are written in the transaction of the change they describe, with a
// pending webhook delivery when the channel has a webhook URL (webhook events only), so nothing is sent for a
// change that rolled back and nothing is lost for one that committed. After the commit, `committed()` wakes the delivery worker.
import type { FeedEventPayload } from '@parley/contracts';
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { channels, deliveries, events } from '../db/schema.ts';
import { newId } from '../lib/ids.ts';

export interface OutboxEvent {
  accountId: string;
  channelId: string;
  chatId: string | null;
  /** A webhook event (delivered to the channel's webhook) or one of the feed's own (`chat_handed_off`: never delivered). */
  payload: FeedEventPayload;
}

/** Webhooks get exactly the spec's three events; the feed's own events are never delivered. */
function deliveredToWebhooks(payload: FeedEventPayload): boolean {
  return payload.event !== 'chat_handed_off';
}

/** Called after a transaction that recorded events has committed. */
export type EventsCommitted = () => void;

/** NOTIFY channel of new deliveries: delivery workers of every process on the database LISTEN on it. */
export const DELIVERIES_CHANNEL = 'parley_deliveries';
/** NOTIFY channel of every committed event, payload `<accountId>:<eventId>`: live views (Inbox, widget) LISTEN on it. */
export const EVENTS_CHANNEL = 'parley_events';

/**
 * One statement: the event, its delivery when the channel has a webhook URL, and NOTIFYs (sent by PostgreSQL at
 * commit, never for a rollback, in commit order) that wake the delivery workers and the live feeds of every process.
 */
export async function recordEvent(executor: Executor, event: OutboxEvent): Promise<string> {
  const id = newId();
  await executor.execute(
    sql`WITH event AS (
          INSERT INTO ${events} (id, account_id, channel_id, chat_id, kind, payload)
          VALUES (${id}, ${event.accountId}, ${event.channelId}, ${event.chatId}, ${event.payload.event}, ${JSON.stringify(event.payload)}::jsonb)),
        delivery AS (
          INSERT INTO ${deliveries} (id, event_id, account_id, channel_id, next_attempt_at)
          SELECT ${newId()}, ${id}, ${event.accountId}, ${channels.id}, now() FROM ${channels}
          WHERE ${channels.id} = ${event.channelId} AND ${channels.webhookUrl} IS NOT NULL AND ${deliveredToWebhooks(event.payload)}
          RETURNING 1)
        SELECT pg_notify(${DELIVERIES_CHANNEL}, '') FROM delivery
        UNION ALL SELECT pg_notify(${EVENTS_CHANNEL}, ${`${event.accountId}:${id}`})`,
  );
  return id;
}
