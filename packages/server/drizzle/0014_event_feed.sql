-- The event feed (GET /api/v1/events): each event keeps the id of the transaction that wrote it, so the feed can
-- return events in commit order (only transactions older than the reader's snapshot xmin, ordered by (xid, id)).
ALTER TABLE "events" ADD COLUMN "xid" xid8 DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
CREATE INDEX "events_account_xid_idx" ON "events" USING btree ("account_id","xid","id");--> statement-breakpoint
-- Keys that had every scope before events:read existed get it too (they were "all scopes" keys).
UPDATE "api_keys" SET "scopes" = array_append("scopes", 'events:read')
WHERE "scopes" @> ARRAY['chats:read', 'chats:write', 'tags', 'messages', 'feedback']::text[]
  AND NOT ('events:read' = ANY("scopes"));
