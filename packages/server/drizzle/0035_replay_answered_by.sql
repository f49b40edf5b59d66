-- Replay pairing (issue #42, 5): a history question answered by the agent alone is replayed too, against the agent's
-- own past reply; the item says whose past reply its `teamAnswer` is (`team`: a member's reply or a file's answer).
ALTER TABLE "replay_items" ADD COLUMN "answered_by" text DEFAULT 'team' NOT NULL;--> statement-breakpoint
ALTER TABLE "replay_items" ADD CONSTRAINT "replay_items_answered_by_check" CHECK ("replay_items"."answered_by" in ('team', 'agent'));
