CREATE TABLE "chat_counts" (
	"account_id" uuid NOT NULL,
	"channel_id" text NOT NULL,
	"channel_kind" text NOT NULL,
	"chats" integer DEFAULT 0 NOT NULL,
	"done_chats" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "chat_counts_account_id_channel_id_channel_kind_pk" PRIMARY KEY("account_id","channel_id","channel_kind")
);
--> statement-breakpoint
DROP INDEX "chats_channel_activity_idx";--> statement-breakpoint
ALTER TABLE "chat_tags" ADD COLUMN "last_message_at" timestamp (3) with time zone DEFAULT '-infinity' NOT NULL;--> statement-breakpoint
ALTER TABLE "tags" ADD COLUMN "chat_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_counts" ADD CONSTRAINT "chat_counts_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chats_account_channel_activity_idx" ON "chats" USING btree ("account_id","channel_id","last_message_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
-- Written by hand below (drizzle-kit generates tables and indexes, not triggers). Three copies kept exact by
-- triggers, whatever writes the rows (the app, fixtures, cascades, SQL): chat_counts (the chat list's `count`
-- without tags), tags.chat_count (its `count` with tags), chat_tags.last_message_at (a tag's chats newest first).
CREATE FUNCTION chat_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO chat_counts AS c (account_id, channel_id, channel_kind, chats, done_chats)
  SELECT account_id, channel_id, channel_kind, count(*), count(*) FILTER (WHERE task_done)
  FROM inserted_chats
  GROUP BY account_id, channel_id, channel_kind
  ON CONFLICT (account_id, channel_id, channel_kind)
  DO UPDATE SET chats = c.chats + excluded.chats, done_chats = c.done_chats + excluded.done_chats;
  RETURN NULL;
END $$;--> statement-breakpoint
-- Statement-level with a transition table: one update per channel, however many rows the statement inserts.
CREATE TRIGGER chat_counts_after_insert AFTER INSERT ON chats REFERENCING NEW TABLE AS inserted_chats
  FOR EACH STATEMENT EXECUTE FUNCTION chat_counts_after_insert();--> statement-breakpoint
-- An update only: when a channel is deleted its chat_counts rows may already be gone (cascade), and stay gone.
CREATE FUNCTION chat_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_counts c SET chats = c.chats - d.chats, done_chats = c.done_chats - d.done_chats
  FROM (
    SELECT account_id, channel_id, channel_kind, count(*) AS chats, count(*) FILTER (WHERE task_done) AS done_chats
    FROM deleted_chats
    GROUP BY account_id, channel_id, channel_kind
  ) d
  WHERE c.account_id = d.account_id AND c.channel_id = d.channel_id AND c.channel_kind = d.channel_kind;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_counts_after_delete AFTER DELETE ON chats REFERENCING OLD TABLE AS deleted_chats
  FOR EACH STATEMENT EXECUTE FUNCTION chat_counts_after_delete();--> statement-breakpoint
-- Row-level, and only when a counted column changes: a new message (the common update) does not call it.
CREATE FUNCTION chat_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_counts SET chats = chats - 1, done_chats = done_chats - OLD.task_done::int
  WHERE account_id = OLD.account_id AND channel_id = OLD.channel_id AND channel_kind = OLD.channel_kind;
  INSERT INTO chat_counts AS c (account_id, channel_id, channel_kind, chats, done_chats)
  VALUES (NEW.account_id, NEW.channel_id, NEW.channel_kind, 1, NEW.task_done::int)
  ON CONFLICT (account_id, channel_id, channel_kind)
  DO UPDATE SET chats = c.chats + 1, done_chats = c.done_chats + excluded.done_chats;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_counts_after_update AFTER UPDATE OF account_id, channel_id, channel_kind, task_done ON chats
  FOR EACH ROW
  WHEN ((OLD.account_id, OLD.channel_id, OLD.channel_kind, OLD.task_done)
        IS DISTINCT FROM (NEW.account_id, NEW.channel_id, NEW.channel_kind, NEW.task_done))
  EXECUTE FUNCTION chat_counts_after_update();--> statement-breakpoint
CREATE FUNCTION chat_counts_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM chat_counts;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_counts_after_truncate AFTER TRUNCATE ON chats
  FOR EACH STATEMENT EXECUTE FUNCTION chat_counts_after_truncate();--> statement-breakpoint
-- One function for inserts (+) and deletes (-): both triggers name their transition table changed_chat_tags.
CREATE FUNCTION tags_count_chats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tags t SET chat_count = t.chat_count + CASE TG_OP WHEN 'INSERT' THEN c.chats ELSE -c.chats END
  FROM (SELECT tag_id, count(*)::int AS chats FROM changed_chat_tags GROUP BY tag_id) c
  WHERE t.id = c.tag_id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER tags_count_chats_after_insert AFTER INSERT ON chat_tags REFERENCING NEW TABLE AS changed_chat_tags
  FOR EACH STATEMENT EXECUTE FUNCTION tags_count_chats();--> statement-breakpoint
CREATE TRIGGER tags_count_chats_after_delete AFTER DELETE ON chat_tags REFERENCING OLD TABLE AS changed_chat_tags
  FOR EACH STATEMENT EXECUTE FUNCTION tags_count_chats();--> statement-breakpoint
CREATE FUNCTION tags_count_chats_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tags SET chat_count = chat_count - 1 WHERE id = OLD.tag_id;
  UPDATE tags SET chat_count = chat_count + 1 WHERE id = NEW.tag_id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER tags_count_chats_after_update AFTER UPDATE OF tag_id ON chat_tags
  FOR EACH ROW WHEN (OLD.tag_id IS DISTINCT FROM NEW.tag_id)
  EXECUTE FUNCTION tags_count_chats_after_update();--> statement-breakpoint
CREATE FUNCTION tags_count_chats_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tags SET chat_count = 0 WHERE chat_count <> 0;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER tags_count_chats_after_truncate AFTER TRUNCATE ON chat_tags
  FOR EACH STATEMENT EXECUTE FUNCTION tags_count_chats_after_truncate();--> statement-breakpoint
-- FOR SHARE: a concurrent change of the chat's activity either commits first (and is read here) or waits for
-- this row (and its trigger below then updates it), so the copy is never left stale.
CREATE FUNCTION chat_tags_copy_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT last_message_at INTO NEW.last_message_at FROM chats WHERE id = NEW.chat_id FOR SHARE;
  IF NOT FOUND THEN
    RAISE foreign_key_violation USING MESSAGE = format('chat %s does not exist', NEW.chat_id);
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_tags_copy_activity BEFORE INSERT OR UPDATE OF chat_id ON chat_tags
  FOR EACH ROW EXECUTE FUNCTION chat_tags_copy_activity();--> statement-breakpoint
CREATE FUNCTION chats_copy_activity_to_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_tags SET last_message_at = NEW.last_message_at WHERE chat_id = NEW.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chats_copy_activity_to_tags AFTER UPDATE OF last_message_at ON chats
  FOR EACH ROW WHEN (OLD.last_message_at IS DISTINCT FROM NEW.last_message_at)
  EXECUTE FUNCTION chats_copy_activity_to_tags();--> statement-breakpoint
-- The copies of the rows already there; the triggers above hold the tables locked until this migration commits.
INSERT INTO chat_counts (account_id, channel_id, channel_kind, chats, done_chats)
SELECT account_id, channel_id, channel_kind, count(*), count(*) FILTER (WHERE task_done)
FROM chats
GROUP BY account_id, channel_id, channel_kind;--> statement-breakpoint
UPDATE tags t SET chat_count = c.chats
FROM (SELECT tag_id, count(*)::int AS chats FROM chat_tags GROUP BY tag_id) c
WHERE t.id = c.tag_id;--> statement-breakpoint
UPDATE chat_tags ct SET last_message_at = c.last_message_at FROM chats c WHERE c.id = ct.chat_id;--> statement-breakpoint
-- Moved here from above (generated), so the copy above does not update it row by row.
CREATE INDEX "chat_tags_tag_activity_idx" ON "chat_tags" USING btree ("tag_id","last_message_at" DESC NULLS LAST,"chat_id" DESC NULLS LAST);
