-- Outcomes and reports (issue #36), written by hand (functions and triggers). A conversation is a row kept as
-- things happen, never recomputed from messages at query time: triggers on messages (a customer message starts or
-- continues one; an agent reply, a handoff, a member's reply move it) and on chats (the task marked done ends it,
-- an assignment follows it) write it in the transaction of the change, whichever path wrote the message (the
-- ingest's batch statement, the agent's one-statement reply, the step-by-step writes, the Inbox). The sweep of
-- conversations/conversations-sweep.ts ends those quiet for the account's resolution_quiet_minutes and settles
-- `durable` after 7 days. Existing chats are not backfilled (docs/decisions.md): reports start at this migration.
ALTER TABLE "accounts" ADD COLUMN "resolution_quiet_minutes" integer DEFAULT 1440 NOT NULL;--> statement-breakpoint
-- What an agent reply was, beside fallback/handoff/choices/after_choice: a greeting is no answer.
ALTER TABLE "messages" ADD COLUMN "greeting" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- The handoff's reason on the agent reply that handed the chat over (model, customer_request, fallbacks).
ALTER TABLE "messages" ADD COLUMN "handoff_reason" text;--> statement-breakpoint
-- The member who wrote a team reply from the Inbox (no foreign key: a removed member's replies keep their id).
ALTER TABLE "messages" ADD COLUMN "member_id" uuid;--> statement-breakpoint
-- A customer's message that rated the conversation before it (a messenger's 1-5 after `How did we do?`): it
-- starts no conversation and waits for no agent.
ALTER TABLE "messages" ADD COLUMN "csat" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE TABLE "conversations" (
  "id" uuid PRIMARY KEY NOT NULL,
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "chat_id" uuid NOT NULL REFERENCES "chats"("id") ON DELETE CASCADE,
  "channel_id" text NOT NULL,
  "started_at" timestamp (3) with time zone NOT NULL,
  "ended_at" timestamp (3) with time zone,
  "ended_by" text,
  "outcome" text,
  "confirmed" boolean DEFAULT false NOT NULL,
  "durable" boolean,
  "last_message_at" timestamp (3) with time zone NOT NULL,
  "last_customer_message_at" timestamp (3) with time zone NOT NULL,
  "messages" integer DEFAULT 0 NOT NULL,
  "agent_answers" integer DEFAULT 0 NOT NULL,
  "answered_after_choice" integer DEFAULT 0 NOT NULL,
  "handed_off_at" timestamp (3) with time zone,
  "handoff_reason" text,
  "team_replied" boolean DEFAULT false NOT NULL,
  "member_ids" uuid[] DEFAULT '{}' NOT NULL,
  "first_agent_response_seconds" double precision,
  "first_team_response_seconds" double precision,
  "assignee_id" uuid,
  "csat_rating" smallint,
  "csat_comment" text,
  "csat_asked_at" timestamp (3) with time zone,
  "csat_at" timestamp (3) with time zone,
  CONSTRAINT "conversations_outcome_check" CHECK ("outcome" in ('resolved_by_agent', 'resolved_by_team', 'handed_off', 'unanswered')),
  CONSTRAINT "conversations_ended_by_check" CHECK ("ended_by" in ('done', 'quiet')),
  CONSTRAINT "conversations_csat_rating_check" CHECK ("csat_rating" between 1 and 5)
);--> statement-breakpoint
-- The reports: one range scan of an account's conversations by start (summary, ledger, CSV), per channel too.
CREATE INDEX "conversations_account_started_idx" ON "conversations" USING btree ("account_id","started_at","id");--> statement-breakpoint
CREATE INDEX "conversations_account_channel_started_idx" ON "conversations" USING btree ("account_id","channel_id","started_at","id");--> statement-breakpoint
-- At most one open conversation per chat (concurrent first messages meet on it).
CREATE UNIQUE INDEX "conversations_chat_open_key" ON "conversations" USING btree ("chat_id") WHERE "ended_at" IS NULL;--> statement-breakpoint
-- A chat's conversations, newest first (its last ended one: CSAT, durable).
CREATE INDEX "conversations_chat_started_idx" ON "conversations" USING btree ("chat_id","started_at" DESC);--> statement-breakpoint
-- The sweep: open ones by their last customer message, ended ones whose durability is not settled.
CREATE INDEX "conversations_open_quiet_idx" ON "conversations" USING btree ("last_customer_message_at") WHERE "ended_at" IS NULL;--> statement-breakpoint
CREATE INDEX "conversations_durable_pending_idx" ON "conversations" USING btree ("ended_at") WHERE "ended_at" IS NOT NULL AND "durable" IS NULL;--> statement-breakpoint
-- parley_conversations_total{outcome}: ended conversations by outcome, 16 shards like overview_days, read at scrape.
CREATE TABLE "conversation_outcome_totals" (
  "outcome" text NOT NULL,
  "shard" smallint NOT NULL,
  "total" bigint DEFAULT 0 NOT NULL,
  CONSTRAINT "conversation_outcome_totals_pk" PRIMARY KEY("outcome","shard")
);--> statement-breakpoint
-- The outcome of a conversation as it ends (DESIGN: a member replied; else handed off; else the agent answered).
CREATE FUNCTION conversation_outcome(team_replied boolean, handed_off_at timestamptz, agent_answers integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN team_replied THEN 'resolved_by_team' WHEN handed_off_at IS NOT NULL THEN 'handed_off'
              WHEN agent_answers > 0 THEN 'resolved_by_agent' ELSE 'unanswered' END
$$;--> statement-breakpoint
-- Ends the open conversation of a chat (by `done`, or by `quiet` when its last customer message is older than
-- `quiet_before`; null: whatever its last message) and counts its outcome.
-- A widget chat's frames hear of it (CSAT, `How did we do?`) through the widget's live signal NOTIFY
-- (channels/widget/typing.ts): `{"c": channelId, "x": conversationId, "e": true}`.
CREATE FUNCTION conversation_end_open(p_chat_id uuid, p_by text, p_quiet_before timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  WITH ended AS (
    UPDATE conversations SET ended_at = last_message_at, ended_by = p_by,
           outcome = conversation_outcome(team_replied, handed_off_at, agent_answers)
    WHERE chat_id = p_chat_id AND ended_at IS NULL
      AND (p_quiet_before IS NULL OR last_customer_message_at < p_quiet_before)
    RETURNING outcome)
  INSERT INTO conversation_outcome_totals AS t (outcome, shard, total)
  SELECT outcome, pg_backend_pid() % 16, count(*) FROM ended GROUP BY outcome
  ON CONFLICT (outcome, shard) DO UPDATE SET total = t.total + excluded.total;
  GET DIAGNOSTICS n = ROW_COUNT;
  IF n > 0 THEN
    PERFORM pg_notify('parley_widget_typing', json_build_object('c', channel_id, 'x', external_chat_id, 'e', true)::text)
    FROM chats WHERE id = p_chat_id AND channel_kind = 'widget';
  END IF;
END $$;--> statement-breakpoint
CREATE FUNCTION conversations_after_message() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  quiet integer;
  started boolean;
  open_id uuid;
  open_last timestamptz;
BEGIN
  IF NEW.csat THEN
    RETURN NULL;
  END IF;
  IF NEW.origin = 'customer' THEN
    -- The chat's open conversation continues (one index lookup and one update, the common case), unless it has been
    -- quiet for longer than the account's resolution time: it ended then (the sweep may not have come by yet), and
    -- this message starts the next one. No open one: this message starts one (a chat's first message skips the
    -- account's lookup and the ending).
    SELECT id, last_customer_message_at INTO open_id, open_last FROM conversations
    WHERE chat_id = NEW.chat_id AND ended_at IS NULL;
    IF open_id IS NOT NULL THEN
      SELECT resolution_quiet_minutes INTO quiet FROM accounts WHERE id = NEW.account_id;
      IF open_last >= NEW.created_at - make_interval(mins => coalesce(quiet, 1440)) THEN
        UPDATE conversations SET messages = messages + 1,
               last_message_at = greatest(last_message_at, NEW.created_at),
               last_customer_message_at = greatest(last_customer_message_at, NEW.created_at)
        WHERE id = open_id AND ended_at IS NULL;
        IF FOUND THEN
          RETURN NULL;
        END IF;
      ELSE
        PERFORM conversation_end_open(NEW.chat_id, 'quiet', NEW.created_at - make_interval(mins => coalesce(quiet, 1440)));
      END IF;
    END IF;
    -- Ends in a continuation when a concurrent first message of the chat started it meanwhile.
    INSERT INTO conversations AS c (id, account_id, chat_id, channel_id, started_at, last_message_at,
                                    last_customer_message_at, messages, assignee_id)
    SELECT gen_random_uuid(), NEW.account_id, NEW.chat_id, ch.channel_id, NEW.created_at, NEW.created_at,
           NEW.created_at, 1, ch.assignee_id
    FROM chats ch WHERE ch.id = NEW.chat_id
    ON CONFLICT (chat_id) WHERE ended_at IS NULL DO UPDATE
      SET messages = c.messages + 1,
          last_message_at = greatest(c.last_message_at, excluded.last_message_at),
          last_customer_message_at = greatest(c.last_customer_message_at, excluded.last_customer_message_at)
    RETURNING (xmax = 0) INTO started;
    IF started THEN
      -- A new conversation within 7 days of the chat's last one: that one was not durable.
      UPDATE conversations SET durable = false
      WHERE chat_id = NEW.chat_id AND ended_at IS NOT NULL AND durable IS NULL
        AND ended_at > NEW.created_at - interval '7 days';
    END IF;
  ELSIF NEW.origin = 'agent' THEN
    UPDATE conversations SET
      messages = messages + 1,
      last_message_at = greatest(last_message_at, NEW.created_at),
      agent_answers = agent_answers
        + CASE WHEN NOT NEW.fallback AND NOT NEW.handoff AND NOT NEW.greeting AND NEW.choices IS NULL THEN 1 ELSE 0 END,
      answered_after_choice = answered_after_choice + CASE WHEN NEW.after_choice AND NOT NEW.handoff THEN 1 ELSE 0 END,
      first_agent_response_seconds = coalesce(first_agent_response_seconds,
        greatest(0, extract(epoch FROM NEW.created_at - started_at))::double precision),
      handed_off_at = CASE WHEN NEW.handoff THEN coalesce(handed_off_at, NEW.created_at) ELSE handed_off_at END,
      handoff_reason = CASE WHEN NEW.handoff AND handed_off_at IS NULL THEN NEW.handoff_reason ELSE handoff_reason END
    WHERE chat_id = NEW.chat_id AND ended_at IS NULL;
  ELSIF NEW.origin IN ('team', 'api') THEN
    -- A member's reply (the Inbox), or a team reply recorded through the public API (no member known).
    UPDATE conversations SET
      messages = messages + 1,
      last_message_at = greatest(last_message_at, NEW.created_at),
      team_replied = true,
      first_team_response_seconds = coalesce(first_team_response_seconds,
        greatest(0, extract(epoch FROM NEW.created_at - coalesce(handed_off_at, started_at)))::double precision),
      member_ids = CASE WHEN NEW.member_id IS NULL OR NEW.member_id = ANY(member_ids) THEN member_ids
                        ELSE member_ids || NEW.member_id END
    WHERE chat_id = NEW.chat_id AND ended_at IS NULL;
  ELSE
    -- The off-hours auto-reply: a message of the conversation, no answer.
    UPDATE conversations SET messages = messages + 1, last_message_at = greatest(last_message_at, NEW.created_at)
    WHERE chat_id = NEW.chat_id AND ended_at IS NULL;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER conversations_after_message AFTER INSERT ON messages
  FOR EACH ROW EXECUTE FUNCTION conversations_after_message();--> statement-breakpoint
CREATE FUNCTION conversations_after_chat() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.task_done AND NOT OLD.task_done THEN
    PERFORM conversation_end_open(NEW.id, 'done', NULL);
  END IF;
  IF NEW.assignee_id IS DISTINCT FROM OLD.assignee_id THEN
    UPDATE conversations SET assignee_id = NEW.assignee_id WHERE chat_id = NEW.id AND ended_at IS NULL;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER conversations_after_chat AFTER UPDATE OF task_done, assignee_id ON chats
  FOR EACH ROW WHEN ((NEW.task_done AND NOT OLD.task_done) OR NEW.assignee_id IS DISTINCT FROM OLD.assignee_id)
  EXECUTE FUNCTION conversations_after_chat();
