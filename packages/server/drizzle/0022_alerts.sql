-- Alerts and follow-through (issue #33): each member's own settings (language, e-mail and browser alerts; a null
-- e-mail preference follows the role's default), forgotten-password links (hash and expiry, once), the account's
-- alert webhook, which members have the web account open (a row per member and process, renewed by a heartbeat),
-- and the last alert e-mail of each chat and member (at most one an hour).
ALTER TABLE "members" ADD COLUMN "language" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "notify_email" text;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "notify_browser" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "reset_token_hash" text;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "reset_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_notify_email_check" CHECK ("members"."notify_email" in ('off', 'handoffs', 'mine'));--> statement-breakpoint
CREATE UNIQUE INDEX "members_reset_token_hash_key" ON "members" USING btree ("reset_token_hash");--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "alert_webhook_url" text;--> statement-breakpoint
CREATE TABLE "member_presence" (
	"member_id" uuid NOT NULL,
	"process_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "member_presence_member_id_process_id_pk" PRIMARY KEY("member_id","process_id")
);--> statement-breakpoint
ALTER TABLE "member_presence" ADD CONSTRAINT "member_presence_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "member_presence_account_seen_idx" ON "member_presence" USING btree ("account_id","seen_at");--> statement-breakpoint
CREATE TABLE "alert_emails" (
	"chat_id" uuid NOT NULL,
	"member_id" uuid NOT NULL,
	"sent_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "alert_emails_chat_id_member_id_pk" PRIMARY KEY("chat_id","member_id")
);--> statement-breakpoint
ALTER TABLE "alert_emails" ADD CONSTRAINT "alert_emails_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_emails" ADD CONSTRAINT "alert_emails_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;
