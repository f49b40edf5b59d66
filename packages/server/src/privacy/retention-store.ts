// SQL of the retention sweep (issue #45, item 6): what an account keeps for `retentionDays` days after a conversation
// ends. Each call is one batch in its own transaction; rows another transaction holds are skipped (the next run takes
// them). The reports' rollup stays: `parley.keep_rollup` tells the conversations' delete trigger (migration 0038).
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.ts';
import type { StoredAttachment } from '../db/schema.ts';

export function createRetentionStore(db: Executor) {
  const keepRollup = () => db.execute(sql`select set_config('parley.keep_rollup', 'on', true)`);

  return {
    /**
     * Chats whose last message is older than their account's retention and whose conversations have all ended are
     * deleted whole (messages, notes, conversations, tags by cascade; their events). The attachments they held.
     */
    async deleteOldChats(now: Date, limit: number): Promise<{ chats: number; attachments: StoredAttachment[] }> {
      await keepRollup();
      const chats = await queryRows<{ id: string }>(
        db,
        sql`select c.id from accounts a
            join chats c on c.account_id = a.id
              and c.last_message_at < ${now}::timestamptz - a.retention_days * interval '1 day'
            where a.retention_days is not null
              and not exists (select 1 from conversations v where v.chat_id = c.id and v.ended_at is null)
            limit ${limit}
            for update of c skip locked`,
      );
      if (chats.length === 0) return { chats: 0, attachments: [] };
      const ids = sql.join(
        chats.map((chat) => sql`${chat.id}::uuid`),
        sql`, `,
      );
      const held = await queryRows<{ attachments: StoredAttachment[] }>(
        db,
        sql`select attachments from messages where chat_id in (${ids}) and jsonb_array_length(attachments) > 0`,
      );
      await db.execute(sql`delete from events where chat_id in (${ids})`);
      await db.execute(sql`delete from chats where id in (${ids})`);
      return { chats: chats.length, attachments: held.flatMap((row) => row.attachments) };
    },

    /**
     * In chats that go on, conversations ended before the retention are deleted with the messages and notes written
     * during them. The attachments they held.
     */
    async deleteOldConversations(now: Date, limit: number): Promise<{ conversations: number; attachments: StoredAttachment[] }> {
      await keepRollup();
      const old = await queryRows<{ id: string; chat_id: string; started_at: string; ended_at: string }>(
        db,
        sql`select v.id, v.chat_id, v.started_at, v.ended_at from accounts a
            join conversations v on v.account_id = a.id
              and v.ended_at < ${now}::timestamptz - a.retention_days * interval '1 day'
            where a.retention_days is not null
            limit ${limit}
            for update of v skip locked`,
      );
      if (old.length === 0) return { conversations: 0, attachments: [] };
      const spans = sql.join(
        old.map((v) => sql`(${v.chat_id}::uuid, ${v.started_at}::timestamptz, ${v.ended_at}::timestamptz)`),
        sql`, `,
      );
      const held = await queryRows<{ attachments: StoredAttachment[] }>(
        db,
        sql`delete from messages m using (values ${spans}) as s(chat_id, started_at, ended_at)
            where m.chat_id = s.chat_id and m.created_at between s.started_at and s.ended_at
            returning m.attachments`,
      );
      await db.execute(
        sql`delete from chat_notes n using (values ${spans}) as s(chat_id, started_at, ended_at)
            where n.chat_id = s.chat_id and n.created_at between s.started_at and s.ended_at`,
      );
      await db.execute(
        sql`delete from conversations where id in (${sql.join(
          old.map((v) => sql`${v.id}::uuid`),
          sql`, `,
        )})`,
      );
      return { conversations: old.length, attachments: held.flatMap((row) => row.attachments).filter((a) => a !== undefined) };
    },
  };
}
