-- Replay (issue #37): past customer questions (a channel's history, or an uploaded file) answered again by the
-- channel's agent as configured now, sending nothing; each item keeps the agent's reply, its verdict against the
-- team's answer and the team's mark. Items are written once, by the job that holds the replay's lease.
CREATE TABLE "replays" (
  "id" uuid PRIMARY KEY NOT NULL,
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "channel_id" text NOT NULL REFERENCES "channels"("id") ON DELETE CASCADE,
  "source" text NOT NULL,
  "status" text DEFAULT 'running' NOT NULL,
  "total" integer NOT NULL,
  "error" text,
  "created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
  "finished_at" timestamp (3) with time zone,
  CONSTRAINT "replays_source_check" CHECK ("source" in ('history', 'file')),
  CONSTRAINT "replays_status_check" CHECK ("status" in ('running', 'done', 'failed'))
);--> statement-breakpoint
CREATE INDEX "replays_account_created_idx" ON "replays" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE TABLE "replay_items" (
  "id" uuid PRIMARY KEY NOT NULL,
  "replay_id" uuid NOT NULL REFERENCES "replays"("id") ON DELETE CASCADE,
  "position" integer NOT NULL,
  "question" text NOT NULL,
  "team_answer" text,
  "conversation_id" text,
  "agent_reply" text,
  "verdict" text,
  "mark" text,
  CONSTRAINT "replay_items_verdict_check" CHECK ("verdict" in ('agrees', 'differs', 'clarified', 'handed_off', 'fell_back')),
  CONSTRAINT "replay_items_mark_check" CHECK ("mark" in ('right', 'wrong'))
);--> statement-breakpoint
CREATE UNIQUE INDEX "replay_items_replay_position_key" ON "replay_items" USING btree ("replay_id","position");--> statement-breakpoint
CREATE INDEX "replay_items_pending_idx" ON "replay_items" USING btree ("replay_id","position") WHERE "verdict" IS NULL;
