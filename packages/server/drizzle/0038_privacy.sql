-- Security and privacy (issue #45): each sign-in of a member is a session the member can list and end, and an
-- account may keep its conversations only so many days.
CREATE TABLE "member_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"member_id" uuid NOT NULL,
	"session_version" integer NOT NULL,
	"user_agent" text NOT NULL,
	"address" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "member_sessions" ADD CONSTRAINT "member_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_sessions" ADD CONSTRAINT "member_sessions_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "member_sessions_member_id_idx" ON "member_sessions" USING btree ("member_id");--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "retention_days" integer;--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_retention_days_check" CHECK ("accounts"."retention_days" between 7 and 3650);
--> statement-breakpoint
-- The retention sweep deletes old conversations but keeps the reports' rollup: with `parley.keep_rollup` set in its
-- transaction, a deleted conversation is not counted out of conversation_days.
DROP TRIGGER conversation_days_after_delete ON conversations;--> statement-breakpoint
CREATE TRIGGER conversation_days_after_delete AFTER DELETE ON conversations
  FOR EACH ROW WHEN (OLD.ended_at IS NOT NULL AND coalesce(current_setting('parley.keep_rollup', true), '') <> 'on')
  EXECUTE FUNCTION conversation_days_after_change();
