ALTER TABLE "chat_counts" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_counts" DROP CONSTRAINT "chat_counts_account_id_channel_id_channel_kind_pk";--> statement-breakpoint
ALTER TABLE "chat_counts" ADD CONSTRAINT "chat_counts_account_id_channel_id_channel_kind_shard_pk" PRIMARY KEY("account_id","channel_id","channel_kind","shard");--> statement-breakpoint
-- Written by hand (drizzle-kit orders the column after the key that needs it, and writes no functions). The
-- counters of 0005 become sums over 16 shards: each transaction adds to the shard of its connection, so
-- transactions creating chats in one channel no longer wait for each other's row lock until they commit.
CREATE OR REPLACE FUNCTION chat_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO chat_counts AS c (account_id, channel_id, channel_kind, shard, chats, done_chats)
  SELECT account_id, channel_id, channel_kind, pg_backend_pid() % 16, count(*), count(*) FILTER (WHERE task_done)
  FROM inserted_chats
  GROUP BY account_id, channel_id, channel_kind
  ON CONFLICT (account_id, channel_id, channel_kind, shard)
  DO UPDATE SET chats = c.chats + excluded.chats, done_chats = c.done_chats + excluded.done_chats;
  RETURN NULL;
END $$;--> statement-breakpoint
-- Deletes (rare: a channel or account removed with its chats) take from one existing shard of each key, and
-- never add a row: a channel being deleted may have lost its rows already (cascade), and they stay gone.
CREATE OR REPLACE FUNCTION chat_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_counts c SET chats = c.chats - d.chats, done_chats = c.done_chats - d.done_chats
  FROM (
    SELECT account_id, channel_id, channel_kind, count(*) AS chats, count(*) FILTER (WHERE task_done) AS done_chats
    FROM deleted_chats
    GROUP BY account_id, channel_id, channel_kind
  ) d
  WHERE c.account_id = d.account_id AND c.channel_id = d.channel_id AND c.channel_kind = d.channel_kind
    AND c.shard = (SELECT min(x.shard) FROM chat_counts x
                   WHERE x.account_id = d.account_id AND x.channel_id = d.channel_id AND x.channel_kind = d.channel_kind);
  RETURN NULL;
END $$;--> statement-breakpoint
-- A chat whose counted columns change leaves its old key and joins its new one, in this connection's shard (a
-- shard may go below zero; the sum of a key's shards is its count).
CREATE OR REPLACE FUNCTION chat_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  my_shard smallint := pg_backend_pid() % 16;
BEGIN
  IF (OLD.account_id, OLD.channel_id, OLD.channel_kind) = (NEW.account_id, NEW.channel_id, NEW.channel_kind) THEN
    INSERT INTO chat_counts AS c (account_id, channel_id, channel_kind, shard, chats, done_chats)
    VALUES (NEW.account_id, NEW.channel_id, NEW.channel_kind, my_shard, 0, NEW.task_done::int - OLD.task_done::int)
    ON CONFLICT (account_id, channel_id, channel_kind, shard)
    DO UPDATE SET done_chats = c.done_chats + excluded.done_chats;
    RETURN NULL;
  END IF;
  INSERT INTO chat_counts AS c (account_id, channel_id, channel_kind, shard, chats, done_chats)
  VALUES (OLD.account_id, OLD.channel_id, OLD.channel_kind, my_shard, -1, -OLD.task_done::int)
  ON CONFLICT (account_id, channel_id, channel_kind, shard)
  DO UPDATE SET chats = c.chats + excluded.chats, done_chats = c.done_chats + excluded.done_chats;
  INSERT INTO chat_counts AS c (account_id, channel_id, channel_kind, shard, chats, done_chats)
  VALUES (NEW.account_id, NEW.channel_id, NEW.channel_kind, my_shard, 1, NEW.task_done::int)
  ON CONFLICT (account_id, channel_id, channel_kind, shard)
  DO UPDATE SET chats = c.chats + excluded.chats, done_chats = c.done_chats + excluded.done_chats;
  RETURN NULL;
END $$;
