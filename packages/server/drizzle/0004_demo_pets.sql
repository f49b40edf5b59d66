CREATE TABLE "demo_seeds" (
	"account_id" uuid PRIMARY KEY NOT NULL,
	"seeded_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pets" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "pets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" uuid NOT NULL,
	"name" text NOT NULL,
	"category_id" bigint NOT NULL,
	"status" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pets_status_check" CHECK ("pets"."status" in ('available', 'pending', 'sold')),
	CONSTRAINT "pets_name_not_empty" CHECK (length("pets"."name") > 0)
);
--> statement-breakpoint
ALTER TABLE "demo_seeds" ADD CONSTRAINT "demo_seeds_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pets" ADD CONSTRAINT "pets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pets_account_id_idx" ON "pets" USING btree ("account_id","id");