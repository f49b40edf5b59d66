-- Handoff summaries (issue #44, item 4): a note of the chat is a member's note or the agent's summary of a handoff.
ALTER TABLE "chat_notes" ADD COLUMN "kind" text DEFAULT 'note' NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_notes" ADD CONSTRAINT "chat_notes_kind_check" CHECK ("kind" in ('note', 'summary'));
