// Runs `body` while the database refuses audit events that meet `condition` (raw SQL over the row `new`, written
// by the test itself): a change must then fail whole, its rows and its event committing together or not at all.
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/client.ts';

export async function withAuditEventsRefused(db: Database, condition: string, body: () => Promise<void>): Promise<void> {
  await db.execute(
    sql.raw(`create or replace function parley_test_refuse_audit() returns trigger language plpgsql as $$
      begin
        if ${condition} then raise exception 'audit event refused by the test'; end if;
        return new;
      end $$`),
  );
  await db.execute(sql`create trigger parley_test_refuse_audit before insert on audit_events for each row execute function parley_test_refuse_audit()`);
  try {
    await body();
  } finally {
    await db.execute(sql`drop trigger parley_test_refuse_audit on audit_events`);
    await db.execute(sql`drop function parley_test_refuse_audit()`);
  }
}
