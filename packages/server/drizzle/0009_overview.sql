-- The console's overview (web account's first page), written by hand (functions and triggers). Daily figures
-- per account are counters kept by statement-level triggers, spread over 16 shards per day (pg_backend_pid() % 16,
-- as chat_counts in 0008) so concurrent writers do not queue on one row; the overview sums a window's few rows,
-- whatever the number of chats. They count what happened: deleting a channel does not rewrite past days.
ALTER TABLE "messages" ADD COLUMN "fallback" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- The Inbox's unread filter: unread chats newest first, from an index of those only.
CREATE INDEX "chats_account_unread_activity_idx" ON "chats" USING btree ("account_id","last_message_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE ("unread_count" > 0 or "custom_unread");--> statement-breakpoint
CREATE TABLE "overview_days" (
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "day" date NOT NULL,
  "shard" smallint DEFAULT 0 NOT NULL,
  "conversations" integer DEFAULT 0 NOT NULL,
  "answered" integer DEFAULT 0 NOT NULL,
  "fell_back" integer DEFAULT 0 NOT NULL,
  "corrections" integer DEFAULT 0 NOT NULL,
  CONSTRAINT "overview_days_account_id_day_shard_pk" PRIMARY KEY("account_id","day","shard")
);--> statement-breakpoint
CREATE FUNCTION overview_days_after_chats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO overview_days AS o (account_id, day, shard, conversations)
  SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, pg_backend_pid() % 16, count(*)
  FROM inserted_chats
  GROUP BY 1, 2
  ON CONFLICT (account_id, day, shard) DO UPDATE SET conversations = o.conversations + excluded.conversations;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER overview_days_after_chats AFTER INSERT ON chats REFERENCING NEW TABLE AS inserted_chats
  FOR EACH STATEMENT EXECUTE FUNCTION overview_days_after_chats();--> statement-breakpoint
-- Agent replies only (customer and team messages find no row to add).
CREATE FUNCTION overview_days_after_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO overview_days AS o (account_id, day, shard, answered, fell_back)
  SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, pg_backend_pid() % 16,
         count(*) FILTER (WHERE NOT fallback), count(*) FILTER (WHERE fallback)
  FROM inserted_messages
  WHERE origin = 'agent'
  GROUP BY 1, 2
  ON CONFLICT (account_id, day, shard)
  DO UPDATE SET answered = o.answered + excluded.answered, fell_back = o.fell_back + excluded.fell_back;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER overview_days_after_messages AFTER INSERT ON messages REFERENCING NEW TABLE AS inserted_messages
  FOR EACH STATEMENT EXECUTE FUNCTION overview_days_after_messages();--> statement-breakpoint
CREATE FUNCTION overview_days_after_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO overview_days AS o (account_id, day, shard, corrections)
  SELECT b.account_id, (e.created_at AT TIME ZONE 'UTC')::date, pg_backend_pid() % 16, count(*)
  FROM inserted_entries e JOIN knowledge_bases b ON b.id = e.knowledge_base_id
  WHERE e.source = 'correction'
  GROUP BY 1, 2
  ON CONFLICT (account_id, day, shard) DO UPDATE SET corrections = o.corrections + excluded.corrections;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER overview_days_after_entries AFTER INSERT ON knowledge_entries REFERENCING NEW TABLE AS inserted_entries
  FOR EACH STATEMENT EXECUTE FUNCTION overview_days_after_entries();--> statement-breakpoint
-- The days before this migration, from the rows themselves (fallback was not recorded then: all answered).
INSERT INTO overview_days AS o (account_id, day, conversations)
SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, count(*) FROM chats GROUP BY 1, 2
ON CONFLICT (account_id, day, shard) DO UPDATE SET conversations = o.conversations + excluded.conversations;--> statement-breakpoint
INSERT INTO overview_days AS o (account_id, day, answered)
SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, count(*) FROM messages WHERE origin = 'agent' GROUP BY 1, 2
ON CONFLICT (account_id, day, shard) DO UPDATE SET answered = o.answered + excluded.answered;--> statement-breakpoint
INSERT INTO overview_days AS o (account_id, day, corrections)
SELECT b.account_id, (e.created_at AT TIME ZONE 'UTC')::date, count(*)
FROM knowledge_entries e JOIN knowledge_bases b ON b.id = e.knowledge_base_id WHERE e.source = 'correction' GROUP BY 1, 2
ON CONFLICT (account_id, day, shard) DO UPDATE SET corrections = o.corrections + excluded.corrections;
