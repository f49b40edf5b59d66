-- Two-factor sign-in (issue #45, item 1): a member's TOTP secret (sealed with SECRETS_KEY), the last time step
-- accepted (a code works once), hashed recovery codes; the second step's challenges; the owner's requirement; and
-- the sessions of members who must set two-factor sign-in up before anything else.
ALTER TABLE "members" ADD COLUMN "two_factor_secret" text;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "two_factor_pending_secret" text;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "two_factor_last_step" integer;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "two_factor_recovery_hashes" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "two_factor_enabled_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "require_two_factor" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "member_sessions" ADD COLUMN "two_factor_setup_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE TABLE "login_challenges" (
	"id" uuid PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"member_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "login_challenges" ADD CONSTRAINT "login_challenges_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "login_challenges_token_hash_key" ON "login_challenges" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "login_challenges_member_id_idx" ON "login_challenges" USING btree ("member_id");
