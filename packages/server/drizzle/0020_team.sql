-- Teams (issue #25): members with roles (the account's login becomes its owner, same id as the account, named by
-- its e-mail so a team reply's senderName stays what it was), chat assignment, private notes and saved replies.
CREATE TABLE "canned_responses" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"short_code" text NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE TABLE "chat_notes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"chat_id" uuid NOT NULL,
	"author_id" uuid,
	"author_name" text NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE TABLE "members" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"status" text NOT NULL,
	"password_hash" text,
	"session_version" integer DEFAULT 1 NOT NULL,
	"invite_token_hash" text,
	"invite_expires_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "members_role_check" CHECK ("members"."role" in ('owner', 'admin', 'agent')),
	CONSTRAINT "members_status_check" CHECK ("members"."status" in ('active', 'invited'))
);--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "assignee_id" uuid;--> statement-breakpoint
ALTER TABLE "canned_responses" ADD CONSTRAINT "canned_responses_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_notes" ADD CONSTRAINT "chat_notes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_notes" ADD CONSTRAINT "chat_notes_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_notes" ADD CONSTRAINT "chat_notes_author_id_members_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "canned_responses_account_short_code_key" ON "canned_responses" USING btree ("account_id","short_code");--> statement-breakpoint
CREATE INDEX "chat_notes_chat_created_idx" ON "chat_notes" USING btree ("chat_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "members_email_key" ON "members" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "members_invite_token_hash_key" ON "members" USING btree ("invite_token_hash");--> statement-breakpoint
CREATE INDEX "members_account_id_idx" ON "members" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "members_one_owner_key" ON "members" USING btree ("account_id") WHERE "members"."role" = 'owner';--> statement-breakpoint
ALTER TABLE "chats" ADD CONSTRAINT "chats_assignee_id_members_id_fk" FOREIGN KEY ("assignee_id") REFERENCES "public"."members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chats_account_assignee_activity_idx" ON "chats" USING btree ("account_id","assignee_id","last_message_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "chats"."assignee_id" is not null;--> statement-breakpoint
INSERT INTO "members" ("id", "account_id", "email", "name", "role", "status", "password_hash", "created_at", "updated_at")
SELECT "id", "id", "email", "email", 'owner', 'active', "password_hash", "created_at", "updated_at" FROM "accounts";--> statement-breakpoint
ALTER TABLE "accounts" DROP COLUMN "password_hash";
