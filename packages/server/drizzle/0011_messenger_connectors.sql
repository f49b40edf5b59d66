ALTER TABLE "channels" ADD COLUMN "connector_error" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "connector_error_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE TABLE "messenger_sends" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"channel_id" text NOT NULL,
	"chat_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"parts_sent" integer DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp (3) with time zone,
	CONSTRAINT "messenger_sends_status_check" CHECK ("messenger_sends"."status" in ('pending', 'sent', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "messenger_sends" ADD CONSTRAINT "messenger_sends_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messenger_sends" ADD CONSTRAINT "messenger_sends_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messenger_sends" ADD CONSTRAINT "messenger_sends_chat_id_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messenger_sends" ADD CONSTRAINT "messenger_sends_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messenger_sends_failed_idx" ON "messenger_sends" USING btree ("account_id","finished_at" DESC NULLS LAST) WHERE "messenger_sends"."status" = 'failed';--> statement-breakpoint
CREATE INDEX "messenger_sends_message_idx" ON "messenger_sends" USING btree ("message_id");
