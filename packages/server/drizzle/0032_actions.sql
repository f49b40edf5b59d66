-- Agent actions (issue #43; docs/architecture.md, Agent actions): the account's HTTP calls to its own systems and the
-- record of each run; the actions a channel's agent may use (channels.action_ids: an action's delete takes its id
-- out); a knowledge entry's action (the no-model path runs it when the entry matches); what an agent reply asking
-- about an action waits for (messages.action_pending: a parameter's value or a yes, answered by the next customer
-- message, like a clarification's options); an agent reply that gave an action's answer (messages.after_action),
-- counted per conversation (action_answers) and in the reports' rollup (resolved_with_action: resolved by the agent
-- with an action's answer); replays that call read actions and the actions an item would have called. A reply that
-- only asks about an action is no answer (conversations' agent_answers, the overview's answered), like a clarification.
CREATE TABLE "actions" (
  "id" uuid PRIMARY KEY NOT NULL,
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "name" text NOT NULL,
  "description" text NOT NULL,
  "kind" text NOT NULL,
  "method" text NOT NULL,
  "url" text NOT NULL,
  "headers" jsonb DEFAULT '[]'::jsonb NOT NULL,
  "body" jsonb,
  "parameters" jsonb DEFAULT '[]'::jsonb NOT NULL,
  "answer" text DEFAULT '' NOT NULL,
  "error_answer" text,
  "timeout_ms" integer DEFAULT 5000 NOT NULL,
  "enabled" boolean DEFAULT true NOT NULL,
  "created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "actions_kind_check" CHECK ("kind" in ('read', 'write')),
  CONSTRAINT "actions_method_check" CHECK ("method" in ('GET', 'POST', 'PUT', 'PATCH', 'DELETE'))
);--> statement-breakpoint
CREATE UNIQUE INDEX "actions_account_name_key" ON "actions" USING btree ("account_id","name");--> statement-breakpoint
CREATE TABLE "action_runs" (
  "id" uuid PRIMARY KEY NOT NULL,
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "action_id" uuid NOT NULL REFERENCES "actions"("id") ON DELETE CASCADE,
  "chat_id" uuid REFERENCES "chats"("id") ON DELETE CASCADE,
  "parameters" jsonb NOT NULL,
  "status" integer,
  "ms" integer,
  "outcome" text NOT NULL,
  "error" text,
  "created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "action_runs_outcome_check" CHECK ("outcome" in ('ok', 'http_error', 'timeout', 'refused', 'invalid', 'declined'))
);--> statement-breakpoint
CREATE INDEX "action_runs_action_created_idx" ON "action_runs" USING btree ("action_id","created_at" DESC,"id" DESC);--> statement-breakpoint
CREATE INDEX "action_runs_chat_created_idx" ON "action_runs" USING btree ("chat_id","created_at","id") WHERE "chat_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "action_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_entries" ADD COLUMN "action_id" uuid REFERENCES "actions"("id") ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "action_pending" jsonb;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "after_action" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "replays" ADD COLUMN "call_read_actions" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "replay_items" ADD COLUMN "would_call" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "action_answers" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "conversation_days" ADD COLUMN "resolved_with_action" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Agent replies only: answered directly (neither a fallback, a handoff, a clarification, a question about an action
-- nor an answer to a pick), fell back, handed off, answered after a choice (migration 0025's, one condition more).
CREATE OR REPLACE FUNCTION overview_days_after_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO overview_days AS o (account_id, day, shard, answered, fell_back, handed_off, answered_after_choice)
  SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, pg_backend_pid() % 16,
         count(*) FILTER (WHERE NOT fallback AND NOT handoff AND choices IS NULL AND NOT after_choice AND action_pending IS NULL),
         count(*) FILTER (WHERE fallback), count(*) FILTER (WHERE handoff), count(*) FILTER (WHERE after_choice)
  FROM inserted_messages
  WHERE origin = 'agent'
  GROUP BY 1, 2
  ON CONFLICT (account_id, day, shard)
  DO UPDATE SET answered = o.answered + excluded.answered, fell_back = o.fell_back + excluded.fell_back,
                handed_off = o.handed_off + excluded.handed_off,
                answered_after_choice = o.answered_after_choice + excluded.answered_after_choice;
  RETURN NULL;
END $$;--> statement-breakpoint
-- Migration 0030's row trigger with the agent branch counting action answers (and not counting questions about an action).
CREATE OR REPLACE FUNCTION conversations_after_message() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  quiet integer;
  started boolean;
  latest_id uuid;
  latest_ended timestamptz;
  latest_last timestamptz;
BEGIN
  IF NEW.csat THEN
    RETURN NULL;
  END IF;
  IF NEW.origin = 'customer' THEN
    -- The chat's latest conversation: the open one if any (a chat's open conversation is its newest). It continues
    -- (the common case), unless it has been quiet for longer than the account's resolution time: it ended then (the
    -- sweep may not have come by yet), and this message starts the next one.
    SELECT c.id, c.ended_at, c.last_customer_message_at, a.resolution_quiet_minutes
      INTO latest_id, latest_ended, latest_last, quiet
    FROM conversations c JOIN accounts a ON a.id = c.account_id
    WHERE c.chat_id = NEW.chat_id ORDER BY c.started_at DESC LIMIT 1;
    IF latest_id IS NOT NULL AND latest_ended IS NULL THEN
      IF latest_last >= NEW.created_at - make_interval(mins => quiet) THEN
        UPDATE conversations SET messages = messages + 1,
               last_message_at = greatest(last_message_at, NEW.created_at),
               last_customer_message_at = greatest(last_customer_message_at, NEW.created_at)
        WHERE id = latest_id AND ended_at IS NULL;
        IF FOUND THEN
          RETURN NULL;
        END IF;
      ELSE
        PERFORM conversation_end_open(NEW.chat_id, 'quiet', NEW.created_at - make_interval(mins => quiet));
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
    IF started AND latest_id IS NOT NULL THEN
      -- A new conversation within 7 days of the chat's last one (the latest, or the one just ended by quiet time):
      -- that one was not durable. By its id: migration 0027's statement by chat and end, planned once for all chats,
      -- could scan the table.
      UPDATE conversations SET durable = false
      WHERE id = latest_id AND ended_at IS NOT NULL AND durable IS NULL AND ended_at > NEW.created_at - interval '7 days';
    END IF;
  ELSIF NEW.origin = 'agent' THEN
    UPDATE conversations SET
      messages = messages + 1,
      last_message_at = greatest(last_message_at, NEW.created_at),
      agent_answers = agent_answers
        + CASE WHEN NOT NEW.fallback AND NOT NEW.handoff AND NOT NEW.greeting AND NEW.choices IS NULL
                    AND NEW.action_pending IS NULL THEN 1 ELSE 0 END,
      answered_after_choice = answered_after_choice + CASE WHEN NEW.after_choice AND NOT NEW.handoff THEN 1 ELSE 0 END,
      action_answers = action_answers + CASE WHEN NEW.after_action AND NOT NEW.handoff THEN 1 ELSE 0 END,
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
-- Migration 0029's rollup functions with `resolved_with_action`.
CREATE OR REPLACE FUNCTION conversation_days_count(c conversations, n integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  by_agent integer := (c.outcome IS NOT DISTINCT FROM 'resolved_by_agent')::integer;
  by_team integer := (c.outcome IS NOT DISTINCT FROM 'resolved_by_team')::integer;
  with_action integer := ((c.outcome IS NOT DISTINCT FROM 'resolved_by_agent') AND c.action_answers > 0)::integer;
  agent integer := conversation_bucket(c.first_agent_response_seconds);
  team integer := conversation_bucket(c.first_team_response_seconds);
  resolution integer := conversation_bucket(extract(epoch FROM c.ended_at - c.started_at)::double precision);
  rated integer := (c.csat_rating IS NOT NULL)::integer;
  rating integer := coalesce(c.csat_rating, 0);
  members uuid[] := ARRAY['00000000-0000-0000-0000-000000000000'::uuid] || c.member_ids;
  started date := (c.started_at AT TIME ZONE 'UTC')::date;
BEGIN
  IF n > 0 THEN
    INSERT INTO conversation_days AS d (account_id, member_id, day, channel_id, ended, resolved_by_agent,
      resolved_by_agent_confirmed, resolved_by_agent_durable, resolved_by_team, handed_off, unanswered, ended_handed_off,
      answered_after_choice, resolved_with_action, reason_model, reason_customer_request, reason_fallbacks, csat_count, csat_sum,
      csat_agent_count, csat_agent_sum, csat_team_count, csat_team_sum, agent_hist, team_hist, resolution_hist)
    SELECT c.account_id, m, started, c.channel_id, 1, by_agent, by_agent * c.confirmed::integer,
           by_agent * coalesce(c.durable, false)::integer, by_team, (c.outcome IS NOT DISTINCT FROM 'handed_off')::integer,
           (c.outcome IS NOT DISTINCT FROM 'unanswered')::integer, (c.handed_off_at IS NOT NULL)::integer, c.answered_after_choice,
           with_action, (c.handoff_reason IS NOT DISTINCT FROM 'model')::integer, (c.handoff_reason IS NOT DISTINCT FROM 'customer_request')::integer,
           (c.handoff_reason IS NOT DISTINCT FROM 'fallbacks')::integer, rated, rating, by_agent * rated, by_agent * rating,
           by_team * rated, by_team * rating, conversation_hist_add(NULL, agent, 1), conversation_hist_add(NULL, team, 1),
           conversation_hist_add(NULL, resolution, 1)
    FROM unnest(members) AS m
    ON CONFLICT (account_id, member_id, day, channel_id) DO UPDATE SET
      ended = d.ended + 1,
      resolved_by_agent = d.resolved_by_agent + excluded.resolved_by_agent,
      resolved_by_agent_confirmed = d.resolved_by_agent_confirmed + excluded.resolved_by_agent_confirmed,
      resolved_by_agent_durable = d.resolved_by_agent_durable + excluded.resolved_by_agent_durable,
      resolved_by_team = d.resolved_by_team + excluded.resolved_by_team,
      handed_off = d.handed_off + excluded.handed_off,
      unanswered = d.unanswered + excluded.unanswered,
      ended_handed_off = d.ended_handed_off + excluded.ended_handed_off,
      answered_after_choice = d.answered_after_choice + excluded.answered_after_choice,
      resolved_with_action = d.resolved_with_action + excluded.resolved_with_action,
      reason_model = d.reason_model + excluded.reason_model,
      reason_customer_request = d.reason_customer_request + excluded.reason_customer_request,
      reason_fallbacks = d.reason_fallbacks + excluded.reason_fallbacks,
      csat_count = d.csat_count + excluded.csat_count,
      csat_sum = d.csat_sum + excluded.csat_sum,
      csat_agent_count = d.csat_agent_count + excluded.csat_agent_count,
      csat_agent_sum = d.csat_agent_sum + excluded.csat_agent_sum,
      csat_team_count = d.csat_team_count + excluded.csat_team_count,
      csat_team_sum = d.csat_team_sum + excluded.csat_team_sum,
      agent_hist = conversation_hist_add(d.agent_hist, agent, 1),
      team_hist = conversation_hist_add(d.team_hist, team, 1),
      resolution_hist = conversation_hist_add(d.resolution_hist, resolution, 1);
  ELSE
    -- Out: its rows exist (it was counted in). No insert, so that an account's deletion, whose cascade removes the
    -- rows and the conversations in some order, never writes a row of it.
    UPDATE conversation_days d SET
      ended = d.ended - 1,
      resolved_by_agent = d.resolved_by_agent - by_agent,
      resolved_by_agent_confirmed = d.resolved_by_agent_confirmed - by_agent * c.confirmed::integer,
      resolved_by_agent_durable = d.resolved_by_agent_durable - by_agent * coalesce(c.durable, false)::integer,
      resolved_by_team = d.resolved_by_team - by_team,
      handed_off = d.handed_off - (c.outcome IS NOT DISTINCT FROM 'handed_off')::integer,
      unanswered = d.unanswered - (c.outcome IS NOT DISTINCT FROM 'unanswered')::integer,
      ended_handed_off = d.ended_handed_off - (c.handed_off_at IS NOT NULL)::integer,
      answered_after_choice = d.answered_after_choice - c.answered_after_choice,
      resolved_with_action = d.resolved_with_action - with_action,
      reason_model = d.reason_model - (c.handoff_reason IS NOT DISTINCT FROM 'model')::integer,
      reason_customer_request = d.reason_customer_request - (c.handoff_reason IS NOT DISTINCT FROM 'customer_request')::integer,
      reason_fallbacks = d.reason_fallbacks - (c.handoff_reason IS NOT DISTINCT FROM 'fallbacks')::integer,
      csat_count = d.csat_count - rated,
      csat_sum = d.csat_sum - rating,
      csat_agent_count = d.csat_agent_count - by_agent * rated,
      csat_agent_sum = d.csat_agent_sum - by_agent * rating,
      csat_team_count = d.csat_team_count - by_team * rated,
      csat_team_sum = d.csat_team_sum - by_team * rating,
      agent_hist = conversation_hist_add(d.agent_hist, agent, -1),
      team_hist = conversation_hist_add(d.team_hist, team, -1),
      resolution_hist = conversation_hist_add(d.resolution_hist, resolution, -1)
    WHERE d.account_id = c.account_id AND d.member_id = ANY(members) AND d.day = started AND d.channel_id = c.channel_id;
  END IF;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION conversation_days_rebuild() RETURNS void
LANGUAGE sql AS $$
  DELETE FROM conversation_days;
  INSERT INTO conversation_days (account_id, member_id, day, channel_id, ended, resolved_by_agent,
    resolved_by_agent_confirmed, resolved_by_agent_durable, resolved_by_team, handed_off, unanswered, ended_handed_off,
    answered_after_choice, resolved_with_action, reason_model, reason_customer_request, reason_fallbacks, csat_count, csat_sum,
    csat_agent_count, csat_agent_sum, csat_team_count, csat_team_sum, agent_hist, team_hist, resolution_hist)
  SELECT c.account_id, m, (c.started_at AT TIME ZONE 'UTC')::date, c.channel_id, count(*),
         count(*) FILTER (WHERE c.outcome = 'resolved_by_agent'),
         count(*) FILTER (WHERE c.outcome = 'resolved_by_agent' AND c.confirmed),
         count(*) FILTER (WHERE c.outcome = 'resolved_by_agent' AND c.durable),
         count(*) FILTER (WHERE c.outcome = 'resolved_by_team'),
         count(*) FILTER (WHERE c.outcome = 'handed_off'),
         count(*) FILTER (WHERE c.outcome = 'unanswered'),
         count(*) FILTER (WHERE c.handed_off_at IS NOT NULL),
         coalesce(sum(c.answered_after_choice), 0),
         count(*) FILTER (WHERE c.outcome = 'resolved_by_agent' AND c.action_answers > 0),
         count(*) FILTER (WHERE c.handoff_reason = 'model'),
         count(*) FILTER (WHERE c.handoff_reason = 'customer_request'),
         count(*) FILTER (WHERE c.handoff_reason = 'fallbacks'),
         count(c.csat_rating), coalesce(sum(c.csat_rating), 0),
         count(c.csat_rating) FILTER (WHERE c.outcome = 'resolved_by_agent'),
         coalesce(sum(c.csat_rating) FILTER (WHERE c.outcome = 'resolved_by_agent'), 0),
         count(c.csat_rating) FILTER (WHERE c.outcome = 'resolved_by_team'),
         coalesce(sum(c.csat_rating) FILTER (WHERE c.outcome = 'resolved_by_team'), 0),
         conversation_hist(conversation_bucket(c.first_agent_response_seconds)),
         conversation_hist(conversation_bucket(c.first_team_response_seconds)),
         conversation_hist(conversation_bucket(extract(epoch FROM c.ended_at - c.started_at)::double precision))
  FROM conversations c
  CROSS JOIN LATERAL unnest(ARRAY['00000000-0000-0000-0000-000000000000'::uuid] || c.member_ids) AS m
  WHERE c.ended_at IS NOT NULL
  GROUP BY 1, 2, 3, 4;
$$;
