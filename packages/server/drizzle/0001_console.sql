CREATE TABLE "knowledge_bases" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"name" text NOT NULL,
	"language" text DEFAULT 'en' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_entries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"knowledge_base_id" uuid NOT NULL,
	"question" text NOT NULL,
	"answer" text NOT NULL,
	"source" text DEFAULT 'manual' NOT NULL,
	"message_id" text,
	"search" "tsvector" NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "knowledge_entries_source_check" CHECK ("knowledge_entries"."source" in ('manual', 'correction'))
);
--> statement-breakpoint
CREATE TABLE "login_throttle" (
	"email" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"window_started_at" timestamp (3) with time zone NOT NULL,
	"locked_until" timestamp (3) with time zone
);
--> statement-breakpoint
DROP INDEX "channels_account_id_idx";--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "webhook_url" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "webhook_secret" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "disable_agent_responses" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "settings" jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "knowledge_base_id" uuid;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "agent_engine" jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "agent_api_key" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "credentials" jsonb;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "working_hours" jsonb;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "auto_reply" text;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD CONSTRAINT "knowledge_bases_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_entries" ADD CONSTRAINT "knowledge_entries_knowledge_base_id_knowledge_bases_id_fk" FOREIGN KEY ("knowledge_base_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "knowledge_bases_account_id_idx" ON "knowledge_bases" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "knowledge_entries_base_created_idx" ON "knowledge_entries" USING btree ("knowledge_base_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "knowledge_entries_search_idx" ON "knowledge_entries" USING gin ("search");--> statement-breakpoint
ALTER TABLE "channels" ADD CONSTRAINT "channels_knowledge_base_id_knowledge_bases_id_fk" FOREIGN KEY ("knowledge_base_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "channels_account_id_idx" ON "channels" USING btree ("account_id","created_at");