-- The claim reads pending deliveries per channel from deliveries_pending_channel_idx (channel_id, next_attempt_at).
-- The global due index let the planner walk every due row of every channel for each one (a slow channel's backlog
-- read again for each quiet channel); the next due time at start is found per channel from the same index.
DROP INDEX IF EXISTS "deliveries_due_idx";
