-- The console's overview (web account): aggregates over a time window read from indexes, fast at 1,000,000 chats.
ALTER TABLE "messages" ADD COLUMN "fallback" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "messages_account_agent_created_idx" ON "messages" USING btree ("account_id","created_at","fallback") WHERE "messages"."origin" = 'agent';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "chats_account_created_idx" ON "chats" USING btree ("account_id","created_at");
