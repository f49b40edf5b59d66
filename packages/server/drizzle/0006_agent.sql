CREATE TABLE "agent_failures" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"channel_id" text NOT NULL,
	"chat_id" uuid NOT NULL,
	"error" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_origin_check";--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "auto_reply_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "key" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "rerun" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_entries" ADD COLUMN "synonyms" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_entries" ADD COLUMN "question_keys" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "awaiting_agent" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_failures" ADD CONSTRAINT "agent_failures_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_failures" ADD CONSTRAINT "agent_failures_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_failures" ADD CONSTRAINT "agent_failures_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_failures_account_created_idx" ON "agent_failures" USING btree ("account_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_key_key" ON "jobs" USING btree ("key") WHERE "jobs"."key" is not null;--> statement-breakpoint
CREATE INDEX "knowledge_entries_question_keys_idx" ON "knowledge_entries" USING gin ("question_keys");--> statement-breakpoint
CREATE INDEX "messages_awaiting_agent_idx" ON "messages" USING btree ("chat_id","created_at","id") WHERE "messages"."awaiting_agent";--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_origin_check" CHECK ("messages"."origin" in ('customer', 'agent', 'auto', 'team', 'api'));--> statement-breakpoint
-- Entries written before this migration: their question as the exact-match key (knowledge/normalize.ts does it for new ones).
UPDATE "knowledge_entries" SET "question_keys" = ARRAY[btrim(regexp_replace(lower("question"), '[^[:alnum:]]+', ' ', 'g'))];
