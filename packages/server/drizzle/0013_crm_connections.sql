CREATE TABLE "crm_connections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"company_domain" text,
	"token" text NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"channel_ids" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "crm_connections_kind_check" CHECK ("crm_connections"."kind" in ('hubspot', 'pipedrive'))
);
--> statement-breakpoint
CREATE TABLE "crm_links" (
	"connection_id" uuid NOT NULL,
	"chat_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"contact_id" text,
	"deal_id" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"requested_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"synced_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "crm_links_connection_id_chat_id_pk" PRIMARY KEY("connection_id","chat_id"),
	CONSTRAINT "crm_links_status_check" CHECK ("crm_links"."status" in ('pending', 'synced', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "crm_connections" ADD CONSTRAINT "crm_connections_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_links" ADD CONSTRAINT "crm_links_connection_id_crm_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."crm_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_links" ADD CONSTRAINT "crm_links_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_links" ADD CONSTRAINT "crm_links_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "crm_connections_account_idx" ON "crm_connections" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "crm_links_connection_updated_idx" ON "crm_links" USING btree ("connection_id","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "crm_links_failed_idx" ON "crm_links" USING btree ("account_id","updated_at" DESC NULLS LAST) WHERE "crm_links"."status" = 'failed';--> statement-breakpoint
CREATE INDEX "crm_links_chat_idx" ON "crm_links" USING btree ("chat_id");
