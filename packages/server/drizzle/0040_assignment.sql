-- Auto-assignment, availability and team hours (issue #44, item 2): each member's availability, their choice to be
-- away when their last web-account tab closes, their own capacity (null: the account's) and when a chat was last
-- assigned to them (round robin); the account's assignment mode, capacity, onlyAvailable and team hours; and when a
-- chat last came to need a person (the queue is served oldest first), kept by a trigger so every path that flags a
-- chat (the handoff, the ingest statement's follow-through, a removed member's chats) sets it.
ALTER TABLE "members" ADD COLUMN "availability" text DEFAULT 'available' NOT NULL;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "away_when_offline" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "capacity" integer;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "last_assigned_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_availability_check" CHECK ("availability" in ('available', 'away'));--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_capacity_check" CHECK ("capacity" between 1 and 100);--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "assignment_mode" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "assignment_capacity" integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "assignment_only_available" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "team_hours" jsonb;--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_assignment_mode_check" CHECK ("assignment_mode" in ('off', 'round_robin', 'least_busy'));--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_assignment_capacity_check" CHECK ("assignment_capacity" between 1 and 100);--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "needs_human_at" timestamp (3) with time zone;--> statement-breakpoint
UPDATE "chats" SET "needs_human_at" = "updated_at" WHERE "needs_human";--> statement-breakpoint
-- The queue of chats waiting for a member: flagged, unassigned, oldest first (assignment/assignment-store.ts).
CREATE INDEX "chats_account_waiting_idx" ON "chats" USING btree ("account_id", "needs_human_at", "id")
  WHERE "needs_human" AND "assignee_id" IS NULL;--> statement-breakpoint
CREATE FUNCTION chats_needs_human_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.needs_human_at := now();
  RETURN NEW;
END $$;--> statement-breakpoint
-- Row-level, only when the flag is raised: a new message (the common update) does not call it.
CREATE TRIGGER chats_needs_human_at_before_update BEFORE UPDATE OF needs_human ON chats
  FOR EACH ROW WHEN (NEW.needs_human AND NOT OLD.needs_human)
  EXECUTE FUNCTION chats_needs_human_at();--> statement-breakpoint
CREATE TRIGGER chats_needs_human_at_before_insert BEFORE INSERT ON chats
  FOR EACH ROW WHEN (NEW.needs_human)
  EXECUTE FUNCTION chats_needs_human_at();
--> statement-breakpoint
-- Auto-assignment runs (the keyed job `assignment.run` of the account, assignment/assigner.ts) whenever a chat may
-- be given to someone: a chat comes to wait (flagged and unassigned), a member's slot frees (their chat done,
-- unassigned or given to another), a member becomes available or active or changes capacity, the account's
-- assignment or team hours change. Written by triggers, so every path (the handoff, the ingest statement's
-- follow-through, done from the API, the Inbox, a removed member) queues it in its own transaction; accounts whose
-- mode is `off` queue nothing. The NOTIFY with an empty payload wakes every process's workers at the commit.
CREATE FUNCTION assignment_enqueue(account uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM accounts WHERE id = account AND assignment_mode <> 'off') THEN
    INSERT INTO jobs (id, kind, payload, run_at, key)
    VALUES (gen_random_uuid(), 'assignment.run', jsonb_build_object('accountId', account), now(), 'assignment.run:' || account)
    ON CONFLICT (key) WHERE key IS NOT NULL DO UPDATE
      SET rerun = jobs.locked_until IS NOT NULL AND jobs.locked_until >= now(), run_at = least(jobs.run_at, now());
    PERFORM pg_notify('parley_jobs', '');
  END IF;
END $$;--> statement-breakpoint
CREATE FUNCTION chats_assignment_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM assignment_enqueue(NEW.account_id);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chats_assignment_after_update AFTER UPDATE OF needs_human, assignee_id, task_done ON chats
  FOR EACH ROW
  WHEN ((NEW.needs_human AND NEW.assignee_id IS NULL AND NOT NEW.task_done
         AND NOT (OLD.needs_human AND OLD.assignee_id IS NULL AND NOT OLD.task_done))
        OR (OLD.assignee_id IS NOT NULL AND NOT OLD.task_done
            AND (NEW.assignee_id IS DISTINCT FROM OLD.assignee_id OR NEW.task_done)))
  EXECUTE FUNCTION chats_assignment_enqueue();--> statement-breakpoint
CREATE TRIGGER members_assignment_after_update AFTER UPDATE OF availability, capacity, status ON members
  FOR EACH ROW
  WHEN ((NEW.availability = 'available' AND OLD.availability <> 'available')
        OR NEW.capacity IS DISTINCT FROM OLD.capacity
        OR (NEW.status = 'active' AND OLD.status <> 'active'))
  EXECUTE FUNCTION chats_assignment_enqueue();--> statement-breakpoint
CREATE FUNCTION accounts_assignment_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM assignment_enqueue(NEW.id);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER accounts_assignment_after_update AFTER UPDATE OF assignment_mode, assignment_capacity, assignment_only_available, team_hours ON accounts
  FOR EACH ROW
  WHEN ((NEW.assignment_mode, NEW.assignment_capacity, NEW.assignment_only_available, NEW.team_hours)
        IS DISTINCT FROM (OLD.assignment_mode, OLD.assignment_capacity, OLD.assignment_only_available, OLD.team_hours))
  EXECUTE FUNCTION accounts_assignment_enqueue();
