-- Single sign-on with OpenID Connect (issue #45, item 2): each account's sign-in page address (`/login/<slug>`, made
-- at random, read-only), its provider (the client secret sealed with SECRETS_KEY), who may join and whether
-- passwords still sign in; and the e-mails of removed members, who join by single sign-on again only when invited.
ALTER TABLE "accounts" ADD COLUMN "slug" text DEFAULT substr(md5(random()::text || clock_timestamp()::text), 1, 12) NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_slug_key" ON "accounts" USING btree ("slug");--> statement-breakpoint
CREATE TABLE "account_sso" (
	"account_id" uuid PRIMARY KEY NOT NULL,
	"issuer" text,
	"client_id" text,
	"client_secret" text,
	"button_name" text DEFAULT 'SSO' NOT NULL,
	"allowed_domains" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"default_role" text DEFAULT 'agent' NOT NULL,
	"password_login" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_sso_default_role_check" CHECK ("account_sso"."default_role" in ('admin', 'agent'))
);
--> statement-breakpoint
ALTER TABLE "account_sso" ADD CONSTRAINT "account_sso_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "sso_removed_members" (
	"account_id" uuid NOT NULL,
	"email" text NOT NULL,
	"removed_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sso_removed_members_account_id_email_pk" PRIMARY KEY("account_id","email")
);
--> statement-breakpoint
ALTER TABLE "sso_removed_members" ADD CONSTRAINT "sso_removed_members_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;
