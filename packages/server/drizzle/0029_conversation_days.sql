-- The reports' daily rollup (issue #36, written by hand: functions, an aggregate and triggers). A summary must not
-- read conversations one by one: a 90-day window of a busy account is hundreds of thousands of them. Each ended
-- conversation is counted once in `conversation_days`, by the UTC day it started, its channel and each member who
-- replied in it (member_id 00000000-0000-0000-0000-000000000000 is the row of every conversation), kept by a trigger on
-- conversations in the transaction of each change: the end (task done, the quiet sweep, a customer message after the
-- quiet time), and the changes of an ended one (its rating, `confirmed`, `durable`, its deletion with its chat). The
-- durations (first agent response, first team response, resolution) are histograms of 185 log-spaced buckets: the
-- first holds [0, 0.5 s), bucket k > 1 holds [0.5 s · 2^((k-2)/8), 0.5 s · 2^((k-1)/8)) (9 % wide), the last also
-- everything longer (48.5 days and more); each is stored over the span of buckets it has counted in. Open conversations, few by nature (at most the account's quiet time of
-- them), are read live from the conversations table through conversations_account_open_idx.
CREATE TABLE "conversation_days" (
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "member_id" uuid NOT NULL,
  "day" date NOT NULL,
  "channel_id" text NOT NULL,
  "ended" integer DEFAULT 0 NOT NULL,
  "resolved_by_agent" integer DEFAULT 0 NOT NULL,
  "resolved_by_agent_confirmed" integer DEFAULT 0 NOT NULL,
  "resolved_by_agent_durable" integer DEFAULT 0 NOT NULL,
  "resolved_by_team" integer DEFAULT 0 NOT NULL,
  "handed_off" integer DEFAULT 0 NOT NULL,
  "unanswered" integer DEFAULT 0 NOT NULL,
  "ended_handed_off" integer DEFAULT 0 NOT NULL,
  "answered_after_choice" integer DEFAULT 0 NOT NULL,
  "reason_model" integer DEFAULT 0 NOT NULL,
  "reason_customer_request" integer DEFAULT 0 NOT NULL,
  "reason_fallbacks" integer DEFAULT 0 NOT NULL,
  "csat_count" integer DEFAULT 0 NOT NULL,
  "csat_sum" integer DEFAULT 0 NOT NULL,
  "csat_agent_count" integer DEFAULT 0 NOT NULL,
  "csat_agent_sum" integer DEFAULT 0 NOT NULL,
  "csat_team_count" integer DEFAULT 0 NOT NULL,
  "csat_team_sum" integer DEFAULT 0 NOT NULL,
  "agent_hist" integer[] NOT NULL,
  "team_hist" integer[] NOT NULL,
  "resolution_hist" integer[] NOT NULL,
  CONSTRAINT "conversation_days_pk" PRIMARY KEY ("account_id", "member_id", "day", "channel_id")
);--> statement-breakpoint
-- The bucket of a duration in seconds (null: none).
CREATE FUNCTION conversation_bucket(seconds double precision) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN seconds IS NULL THEN NULL WHEN seconds < 0.5 THEN 1
              ELSE least(185, 2 + floor(8 * ln(seconds / 0.5) / ln(2))::integer) END
$$;--> statement-breakpoint
-- A histogram with `n` more in bucket `b`. A histogram is an array whose subscripts are its buckets and span only
-- those it has counted in (`'[49:51]={1,0,3}'`; a null inside is a 0; null or `'{}'` is empty): a summary reads
-- them whole, and most durations fill a third of the buckets or less. A null bucket changes nothing.
CREATE FUNCTION conversation_hist_add(h integer[], b integer, n integer) RETURNS integer[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF h IS NULL THEN
    h := '{}';
  END IF;
  IF b IS NOT NULL THEN
    h[b] := coalesce(h[b], 0) + n;
  END IF;
  RETURN h;
END $$;--> statement-breakpoint
CREATE FUNCTION conversation_hist_count(h integer[], b integer) RETURNS integer[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT conversation_hist_add(h, b, 1) $$;--> statement-breakpoint
-- The histogram of a set of buckets (the rebuild below).
CREATE AGGREGATE conversation_hist(integer) (SFUNC = conversation_hist_count, STYPE = integer[]);--> statement-breakpoint
-- Counts an ended conversation in (n = 1) or out of (n = -1) its rows: every conversation's and each member's.
CREATE FUNCTION conversation_days_count(c conversations, n integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  by_agent integer := (c.outcome IS NOT DISTINCT FROM 'resolved_by_agent')::integer;
  by_team integer := (c.outcome IS NOT DISTINCT FROM 'resolved_by_team')::integer;
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
      answered_after_choice, reason_model, reason_customer_request, reason_fallbacks, csat_count, csat_sum,
      csat_agent_count, csat_agent_sum, csat_team_count, csat_team_sum, agent_hist, team_hist, resolution_hist)
    SELECT c.account_id, m, started, c.channel_id, 1, by_agent, by_agent * c.confirmed::integer,
           by_agent * coalesce(c.durable, false)::integer, by_team, (c.outcome IS NOT DISTINCT FROM 'handed_off')::integer,
           (c.outcome IS NOT DISTINCT FROM 'unanswered')::integer, (c.handed_off_at IS NOT NULL)::integer, c.answered_after_choice,
           (c.handoff_reason IS NOT DISTINCT FROM 'model')::integer, (c.handoff_reason IS NOT DISTINCT FROM 'customer_request')::integer,
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
CREATE FUNCTION conversation_days_after_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.ended_at IS NOT NULL AND NEW.ended_at IS NOT NULL
     AND OLD.outcome IS NOT DISTINCT FROM NEW.outcome AND OLD.confirmed = NEW.confirmed
     AND OLD.durable IS NOT DISTINCT FROM NEW.durable AND OLD.csat_rating IS NOT DISTINCT FROM NEW.csat_rating
     AND OLD.ended_at = NEW.ended_at AND OLD.member_ids = NEW.member_ids THEN
    RETURN NULL; -- e.g. the rating question asked: nothing the reports count
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.ended_at IS NOT NULL THEN
    PERFORM conversation_days_count(OLD, -1);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.ended_at IS NOT NULL THEN
    PERFORM conversation_days_count(NEW, 1);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- Only ended conversations concern the rollup: the updates of each message of an open one do not call the function.
CREATE TRIGGER conversation_days_after_insert AFTER INSERT ON conversations
  FOR EACH ROW WHEN (NEW.ended_at IS NOT NULL) EXECUTE FUNCTION conversation_days_after_change();--> statement-breakpoint
CREATE TRIGGER conversation_days_after_update AFTER UPDATE ON conversations
  FOR EACH ROW WHEN (OLD.ended_at IS NOT NULL OR NEW.ended_at IS NOT NULL) EXECUTE FUNCTION conversation_days_after_change();--> statement-breakpoint
CREATE TRIGGER conversation_days_after_delete AFTER DELETE ON conversations
  FOR EACH ROW WHEN (OLD.ended_at IS NOT NULL) EXECUTE FUNCTION conversation_days_after_change();--> statement-breakpoint
-- Recounts the whole rollup from the conversations (this migration, and a bulk load made with the triggers off).
CREATE FUNCTION conversation_days_rebuild() RETURNS void
LANGUAGE sql AS $$
  DELETE FROM conversation_days;
  INSERT INTO conversation_days (account_id, member_id, day, channel_id, ended, resolved_by_agent,
    resolved_by_agent_confirmed, resolved_by_agent_durable, resolved_by_team, handed_off, unanswered, ended_handed_off,
    answered_after_choice, reason_model, reason_customer_request, reason_fallbacks, csat_count, csat_sum,
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
$$;--> statement-breakpoint
SELECT conversation_days_rebuild();--> statement-breakpoint
-- Open conversations by account and start: the live part of a summary. Its predicate names account_id so that only
-- a query by account can use it: the triggers' lookups of a chat's open conversation (`chat_id = $1 AND ended_at IS
-- NULL`), planned once per connection while the table may be empty, could otherwise take it, or the index it
-- replaces, as cheaply as conversations_chat_open_key and then scan every open conversation for each message (the
-- ingest's cost of issue #36). It replaces the index on last_customer_message_at, which changed with every customer
-- message: such an update now changes no indexed column and, with room on the page (fillfactor 80), is a HOT update.
-- The sweep reads the open ones through conversations_chat_open_key.
CREATE INDEX "conversations_account_open_idx" ON "conversations" USING btree ("account_id","started_at") WHERE "ended_at" IS NULL AND "account_id" IS NOT NULL;--> statement-breakpoint
DROP INDEX "conversations_open_quiet_idx";--> statement-breakpoint
ALTER TABLE "conversations" SET (fillfactor = 80);
