-- Handoff to the team (issue #26): the channel's handoff message and fallbacks-in-a-row limit, the chat's
-- needs_human flag with a partial index for the Inbox's `Needs a human` view, the agent reply that handed a chat
-- over (messages.handoff), and the overview's daily "handed off" counter, kept by the agent-reply trigger of 0009.
ALTER TABLE "channels" ADD COLUMN "handoff_message" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "handoff_after_fallbacks" integer DEFAULT 2 NOT NULL;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "needs_human" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "handoff" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "overview_days" ADD COLUMN "handed_off" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "chats_account_needs_human_activity_idx" ON "chats" USING btree ("account_id","last_message_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "chats"."needs_human";--> statement-breakpoint
-- Agent replies only: answered (neither a fallback nor a handoff), fell back, handed off.
CREATE OR REPLACE FUNCTION overview_days_after_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO overview_days AS o (account_id, day, shard, answered, fell_back, handed_off)
  SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, pg_backend_pid() % 16,
         count(*) FILTER (WHERE NOT fallback AND NOT handoff), count(*) FILTER (WHERE fallback), count(*) FILTER (WHERE handoff)
  FROM inserted_messages
  WHERE origin = 'agent'
  GROUP BY 1, 2
  ON CONFLICT (account_id, day, shard)
  DO UPDATE SET answered = o.answered + excluded.answered, fell_back = o.fell_back + excluded.fell_back,
                handed_off = o.handed_off + excluded.handed_off;
  RETURN NULL;
END $$;
