import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../src/db/client.ts';

export interface StoredEvent {
  id: string;
  kind: string;
  chat_id: string | null;
  channel_id: string;
  payload: Record<string, unknown>;
}

/** The outbox events of a channel, oldest first. */
export function eventsOf(db: Database, channelId: string): Promise<StoredEvent[]> {
  return queryRows<StoredEvent>(
    db,
    sql`select id, kind, chat_id, channel_id, payload from events where channel_id = ${channelId} order by created_at, id`,
  );
}

/**
 * Polls until `check` returns a value (background jobs), failing after `ms`. The default is generous (15 s): the
 * suite runs on loaded 2-core machines, and on a PostgreSQL server the event feed shows an event only once every
 * transaction older than it has ended, in any database of the server (another test file's work included).
 */
export async function eventually<T>(check: () => Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  // 20 ms at first, then half as long again each time up to 250 ms: a long wait that polls an HTTP route stays under
  // the harness's rate limit (300 a minute) and leaves a loaded machine to the work it waits for.
  let pause = 20;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(250, Math.round(pause * 1.5));
  }
}
