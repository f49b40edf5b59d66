-- Failed console logins are counted per e-mail and address: a stranger's failures lock only the stranger out.
DELETE FROM "login_throttle";--> statement-breakpoint
ALTER TABLE "login_throttle" DROP CONSTRAINT "login_throttle_pkey";--> statement-breakpoint
ALTER TABLE "login_throttle" ADD COLUMN "ip" text NOT NULL;--> statement-breakpoint
ALTER TABLE "login_throttle" ADD CONSTRAINT "login_throttle_email_ip_pk" PRIMARY KEY("email","ip");
