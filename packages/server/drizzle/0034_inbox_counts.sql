-- The Inbox's filters at 500,000 chats (issue #41, 7): counts that do not scan, and tag filters that need no join.
-- Written by hand (functions and triggers). Three parts:
-- 1. chat_inbox_counts: the account's chats counted by every filter the Inbox has besides tags (channel, kind,
--    assignee with the zero uuid for nobody, done, unread, needs a human), 16 shards per key like chat_counts
--    (migration 0008). `count` of any such filter is a sum over a few rows.
-- 2. chat_tags carries a copy of those columns of its chat (kept by the triggers that already copy its activity), so
--    a tag's chats are filtered from chat_tags alone, and its activity index includes them (index-only pages).
-- 3. chat_tag_counts: a tag's chats counted by the same columns, so a tag with other filters is counted by a sum too.
-- 4. The chats' partial indexes include the filtered columns (below).
CREATE TABLE "chat_inbox_counts" (
	"account_id" uuid NOT NULL,
	"channel_id" text NOT NULL,
	"channel_kind" text NOT NULL,
	"assignee_id" uuid NOT NULL,
	"task_done" boolean NOT NULL,
	"unread" boolean NOT NULL,
	"needs_human" boolean NOT NULL,
	"shard" smallint DEFAULT 0 NOT NULL,
	"chats" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "chat_inbox_counts_pk" PRIMARY KEY("account_id","channel_id","channel_kind","assignee_id","task_done","unread","needs_human","shard")
);
--> statement-breakpoint
ALTER TABLE "chat_inbox_counts" ADD CONSTRAINT "chat_inbox_counts_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "chat_tag_counts" (
	"tag_id" uuid NOT NULL,
	"channel_id" text NOT NULL,
	"channel_kind" text NOT NULL,
	"assignee_id" uuid NOT NULL,
	"task_done" boolean NOT NULL,
	"unread" boolean NOT NULL,
	"needs_human" boolean NOT NULL,
	"shard" smallint DEFAULT 0 NOT NULL,
	"chats" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "chat_tag_counts_pk" PRIMARY KEY("tag_id","channel_id","channel_kind","assignee_id","task_done","unread","needs_human","shard")
);
--> statement-breakpoint
ALTER TABLE "chat_tag_counts" ADD CONSTRAINT "chat_tag_counts_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_tag_counts" ADD CONSTRAINT "chat_tag_counts_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_tags" ADD COLUMN "channel_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_tags" ADD COLUMN "channel_kind" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_tags" ADD COLUMN "assignee_id" uuid;--> statement-breakpoint
ALTER TABLE "chat_tags" ADD COLUMN "task_done" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_tags" ADD COLUMN "unread" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_tags" ADD COLUMN "needs_human" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- 1. chat_inbox_counts, kept by triggers on chats whatever writes them (as chat_counts is).
CREATE FUNCTION chat_inbox_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO chat_inbox_counts AS c (account_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard, chats)
  SELECT account_id, channel_id, channel_kind, coalesce(assignee_id, '00000000-0000-0000-0000-000000000000'), task_done,
         unread_count > 0 OR custom_unread, needs_human, pg_backend_pid() % 16, count(*)
  FROM inserted_chats
  GROUP BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (account_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard)
  DO UPDATE SET chats = c.chats + excluded.chats;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_inbox_counts_after_insert AFTER INSERT ON chats REFERENCING NEW TABLE AS inserted_chats
  FOR EACH STATEMENT EXECUTE FUNCTION chat_inbox_counts_after_insert();--> statement-breakpoint
-- Deletes take from one existing shard of each key and never add a row (a channel being deleted may have lost its
-- rows already, by cascade).
CREATE FUNCTION chat_inbox_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_inbox_counts c SET chats = c.chats - d.chats
  FROM (
    SELECT account_id, channel_id, channel_kind, coalesce(assignee_id, '00000000-0000-0000-0000-000000000000') AS assignee_id,
           task_done, unread_count > 0 OR custom_unread AS unread, needs_human, count(*) AS chats
    FROM deleted_chats
    GROUP BY 1, 2, 3, 4, 5, 6, 7
  ) d
  WHERE (c.account_id, c.channel_id, c.channel_kind, c.assignee_id, c.task_done, c.unread, c.needs_human)
        = (d.account_id, d.channel_id, d.channel_kind, d.assignee_id, d.task_done, d.unread, d.needs_human)
    AND c.shard = (SELECT min(x.shard) FROM chat_inbox_counts x
                   WHERE (x.account_id, x.channel_id, x.channel_kind, x.assignee_id, x.task_done, x.unread, x.needs_human)
                         = (d.account_id, d.channel_id, d.channel_kind, d.assignee_id, d.task_done, d.unread, d.needs_human));
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_inbox_counts_after_delete AFTER DELETE ON chats REFERENCING OLD TABLE AS deleted_chats
  FOR EACH STATEMENT EXECUTE FUNCTION chat_inbox_counts_after_delete();--> statement-breakpoint
-- Row-level, only when a counted column changes: a message to a chat already unread (the common update) skips it.
CREATE FUNCTION chat_inbox_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  my_shard smallint := pg_backend_pid() % 16;
BEGIN
  INSERT INTO chat_inbox_counts AS c (account_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard, chats)
  VALUES (OLD.account_id, OLD.channel_id, OLD.channel_kind, coalesce(OLD.assignee_id, '00000000-0000-0000-0000-000000000000'),
          OLD.task_done, OLD.unread_count > 0 OR OLD.custom_unread, OLD.needs_human, my_shard, -1)
  ON CONFLICT (account_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard)
  DO UPDATE SET chats = c.chats - 1;
  INSERT INTO chat_inbox_counts AS c (account_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard, chats)
  VALUES (NEW.account_id, NEW.channel_id, NEW.channel_kind, coalesce(NEW.assignee_id, '00000000-0000-0000-0000-000000000000'),
          NEW.task_done, NEW.unread_count > 0 OR NEW.custom_unread, NEW.needs_human, my_shard, 1)
  ON CONFLICT (account_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard)
  DO UPDATE SET chats = c.chats + 1;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_inbox_counts_after_update
  AFTER UPDATE OF account_id, channel_id, channel_kind, assignee_id, task_done, unread_count, custom_unread, needs_human ON chats
  FOR EACH ROW
  WHEN ((OLD.account_id, OLD.channel_id, OLD.channel_kind, OLD.assignee_id, OLD.task_done, OLD.unread_count > 0 OR OLD.custom_unread, OLD.needs_human)
        IS DISTINCT FROM (NEW.account_id, NEW.channel_id, NEW.channel_kind, NEW.assignee_id, NEW.task_done, NEW.unread_count > 0 OR NEW.custom_unread, NEW.needs_human))
  EXECUTE FUNCTION chat_inbox_counts_after_update();--> statement-breakpoint
CREATE FUNCTION chat_inbox_counts_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM chat_inbox_counts;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_inbox_counts_after_truncate AFTER TRUNCATE ON chats
  FOR EACH STATEMENT EXECUTE FUNCTION chat_inbox_counts_after_truncate();--> statement-breakpoint
-- 2. The chat's filtered columns copied to chat_tags with its activity (the functions of migration 0005, widened).
CREATE OR REPLACE FUNCTION chat_tags_copy_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT last_message_at, channel_id, channel_kind, assignee_id, task_done, unread_count > 0 OR custom_unread, needs_human
  INTO NEW.last_message_at, NEW.channel_id, NEW.channel_kind, NEW.assignee_id, NEW.task_done, NEW.unread, NEW.needs_human
  FROM chats WHERE id = NEW.chat_id FOR SHARE;
  IF NOT FOUND THEN
    RAISE foreign_key_violation USING MESSAGE = format('chat %s does not exist', NEW.chat_id);
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION chats_copy_activity_to_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_tags SET last_message_at = NEW.last_message_at, channel_id = NEW.channel_id, channel_kind = NEW.channel_kind,
    assignee_id = NEW.assignee_id, task_done = NEW.task_done, unread = NEW.unread_count > 0 OR NEW.custom_unread,
    needs_human = NEW.needs_human
  WHERE chat_id = NEW.id;
  RETURN NULL;
END $$;--> statement-breakpoint
DROP TRIGGER chats_copy_activity_to_tags ON chats;--> statement-breakpoint
CREATE TRIGGER chats_copy_activity_to_tags
  AFTER UPDATE OF last_message_at, channel_id, channel_kind, assignee_id, task_done, unread_count, custom_unread, needs_human ON chats
  FOR EACH ROW
  WHEN ((OLD.last_message_at, OLD.channel_id, OLD.channel_kind, OLD.assignee_id, OLD.task_done, OLD.unread_count > 0 OR OLD.custom_unread, OLD.needs_human)
        IS DISTINCT FROM (NEW.last_message_at, NEW.channel_id, NEW.channel_kind, NEW.assignee_id, NEW.task_done, NEW.unread_count > 0 OR NEW.custom_unread, NEW.needs_human))
  EXECUTE FUNCTION chats_copy_activity_to_tags();--> statement-breakpoint
-- 3. chat_tag_counts, kept by triggers on chat_tags from its own columns (a chat deleted with its tags is already gone
-- when the cascade deletes them).
CREATE FUNCTION chat_tag_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO chat_tag_counts AS c (tag_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard, chats)
  SELECT tag_id, channel_id, channel_kind, coalesce(assignee_id, '00000000-0000-0000-0000-000000000000'), task_done, unread,
         needs_human, pg_backend_pid() % 16, count(*)
  FROM inserted_chat_tags
  GROUP BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (tag_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard)
  DO UPDATE SET chats = c.chats + excluded.chats;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_tag_counts_after_insert AFTER INSERT ON chat_tags REFERENCING NEW TABLE AS inserted_chat_tags
  FOR EACH STATEMENT EXECUTE FUNCTION chat_tag_counts_after_insert();--> statement-breakpoint
CREATE FUNCTION chat_tag_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_tag_counts c SET chats = c.chats - d.chats
  FROM (
    SELECT tag_id, channel_id, channel_kind, coalesce(assignee_id, '00000000-0000-0000-0000-000000000000') AS assignee_id,
           task_done, unread, needs_human, count(*) AS chats
    FROM deleted_chat_tags
    GROUP BY 1, 2, 3, 4, 5, 6, 7
  ) d
  WHERE (c.tag_id, c.channel_id, c.channel_kind, c.assignee_id, c.task_done, c.unread, c.needs_human)
        = (d.tag_id, d.channel_id, d.channel_kind, d.assignee_id, d.task_done, d.unread, d.needs_human)
    AND c.shard = (SELECT min(x.shard) FROM chat_tag_counts x
                   WHERE (x.tag_id, x.channel_id, x.channel_kind, x.assignee_id, x.task_done, x.unread, x.needs_human)
                         = (d.tag_id, d.channel_id, d.channel_kind, d.assignee_id, d.task_done, d.unread, d.needs_human));
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_tag_counts_after_delete AFTER DELETE ON chat_tags REFERENCING OLD TABLE AS deleted_chat_tags
  FOR EACH STATEMENT EXECUTE FUNCTION chat_tag_counts_after_delete();--> statement-breakpoint
CREATE FUNCTION chat_tag_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  my_shard smallint := pg_backend_pid() % 16;
BEGIN
  INSERT INTO chat_tag_counts AS c (tag_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard, chats)
  VALUES (OLD.tag_id, OLD.channel_id, OLD.channel_kind, coalesce(OLD.assignee_id, '00000000-0000-0000-0000-000000000000'),
          OLD.task_done, OLD.unread, OLD.needs_human, my_shard, -1)
  ON CONFLICT (tag_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard)
  DO UPDATE SET chats = c.chats - 1;
  INSERT INTO chat_tag_counts AS c (tag_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard, chats)
  VALUES (NEW.tag_id, NEW.channel_id, NEW.channel_kind, coalesce(NEW.assignee_id, '00000000-0000-0000-0000-000000000000'),
          NEW.task_done, NEW.unread, NEW.needs_human, my_shard, 1)
  ON CONFLICT (tag_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, shard)
  DO UPDATE SET chats = c.chats + 1;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_tag_counts_after_update
  AFTER UPDATE OF tag_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human ON chat_tags
  FOR EACH ROW
  WHEN ((OLD.tag_id, OLD.channel_id, OLD.channel_kind, OLD.assignee_id, OLD.task_done, OLD.unread, OLD.needs_human)
        IS DISTINCT FROM (NEW.tag_id, NEW.channel_id, NEW.channel_kind, NEW.assignee_id, NEW.task_done, NEW.unread, NEW.needs_human))
  EXECUTE FUNCTION chat_tag_counts_after_update();--> statement-breakpoint
CREATE FUNCTION chat_tag_counts_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM chat_tag_counts;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_tag_counts_after_truncate AFTER TRUNCATE ON chat_tags
  FOR EACH STATEMENT EXECUTE FUNCTION chat_tag_counts_after_truncate();--> statement-breakpoint
-- The rows already there. chat_tags is filled in place first (its update triggers count nothing yet: the counts
-- are made from the copies after).
ALTER TABLE chat_tags DISABLE TRIGGER chat_tag_counts_after_update;--> statement-breakpoint
UPDATE chat_tags ct SET channel_id = c.channel_id, channel_kind = c.channel_kind, assignee_id = c.assignee_id, task_done = c.task_done,
  unread = c.unread_count > 0 OR c.custom_unread, needs_human = c.needs_human
FROM chats c WHERE c.id = ct.chat_id;--> statement-breakpoint
ALTER TABLE chat_tags ENABLE TRIGGER chat_tag_counts_after_update;--> statement-breakpoint
INSERT INTO chat_inbox_counts (account_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, chats)
SELECT account_id, channel_id, channel_kind, coalesce(assignee_id, '00000000-0000-0000-0000-000000000000'), task_done,
       unread_count > 0 OR custom_unread, needs_human, count(*)
FROM chats
GROUP BY 1, 2, 3, 4, 5, 6, 7;--> statement-breakpoint
INSERT INTO chat_tag_counts (tag_id, channel_id, channel_kind, assignee_id, task_done, unread, needs_human, chats)
SELECT tag_id, channel_id, channel_kind, coalesce(assignee_id, '00000000-0000-0000-0000-000000000000'), task_done, unread, needs_human, count(*)
FROM chat_tags
GROUP BY 1, 2, 3, 4, 5, 6, 7;--> statement-breakpoint
-- A tag's chats newest first, with the filtered columns in the index: a tag's page is read from it alone.
DROP INDEX "chat_tags_tag_activity_idx";--> statement-breakpoint
CREATE INDEX "chat_tags_tag_activity_idx" ON "chat_tags" USING btree ("tag_id","last_message_at" DESC NULLS LAST,"chat_id" DESC NULLS LAST)
  INCLUDE ("channel_id","channel_kind","assignee_id","task_done","unread","needs_human");--> statement-breakpoint
-- 4. The partial indexes a combination of the Inbox's filters walks (done, unread, a member's, needing a person)
-- include the other filtered columns: the chats a page skips are filtered in the index, not read from the table.
DROP INDEX "chats_account_done_activity_idx";--> statement-breakpoint
CREATE INDEX "chats_account_done_activity_idx" ON "chats" USING btree ("account_id","last_message_at" DESC NULLS LAST,"id" DESC NULLS LAST)
  INCLUDE ("channel_id","assignee_id","unread_count","custom_unread","needs_human") WHERE "chats"."task_done";--> statement-breakpoint
DROP INDEX "chats_account_unread_activity_idx";--> statement-breakpoint
CREATE INDEX "chats_account_unread_activity_idx" ON "chats" USING btree ("account_id","last_message_at" DESC NULLS LAST,"id" DESC NULLS LAST)
  INCLUDE ("channel_id","channel_kind","assignee_id","task_done","needs_human") WHERE ("unread_count" > 0 or "custom_unread");--> statement-breakpoint
DROP INDEX "chats_account_assignee_activity_idx";--> statement-breakpoint
CREATE INDEX "chats_account_assignee_activity_idx" ON "chats" USING btree ("account_id","assignee_id","last_message_at" DESC NULLS LAST,"id" DESC NULLS LAST)
  INCLUDE ("channel_id","channel_kind","task_done","unread_count","custom_unread","needs_human") WHERE "chats"."assignee_id" is not null;--> statement-breakpoint
DROP INDEX "chats_account_needs_human_activity_idx";--> statement-breakpoint
CREATE INDEX "chats_account_needs_human_activity_idx" ON "chats" USING btree ("account_id","last_message_at" DESC NULLS LAST,"id" DESC NULLS LAST)
  INCLUDE ("channel_id","channel_kind","assignee_id","task_done","unread_count","custom_unread") WHERE "chats"."needs_human";
