-- Refused embed attempts of the chat widget (issue #34): a page whose origin the channel does not allow tried to
-- show it. One row per channel and origin (the console lists them with `Allow <origin>`); the count and the last
-- time are kept, at most 50 origins a channel (widget-store.ts).
CREATE TABLE "widget_embed_attempts" (
	"channel_id" text NOT NULL,
	"origin" text NOT NULL,
	"attempts" integer DEFAULT 1 NOT NULL,
	"first_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "widget_embed_attempts_channel_id_origin_pk" PRIMARY KEY("channel_id","origin")
);--> statement-breakpoint
ALTER TABLE "widget_embed_attempts" ADD CONSTRAINT "widget_embed_attempts_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;
