-- The customer in view (issue #34, item 5): the host page a widget visitor last opened the widget on (origin and
-- path only), and the index of the customer card's other chats of the account with the same e-mail.
ALTER TABLE "widget_visitors" ADD COLUMN "page_url" text;--> statement-breakpoint
CREATE INDEX "chats_account_email_activity_idx" ON "chats" USING btree ("account_id","email","last_message_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "chats"."email" is not null;
