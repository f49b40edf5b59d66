-- Day two (issue #42). The overview counts the clarifying menus the agent offered (messages with choices) beside its
-- answers, and a greeting is no answer there either (as in the reports: migration 0027); the days before this
-- migration get their clarifications from the rows themselves (shard 0). An invitation keeps its link's token sealed
-- (AES-256-GCM with SECRETS_KEY, lib/secret-box.ts) so the team page can show and copy the link again; cleared when
-- the invitation is accepted. Invitations made before have none: renewing one makes a new link. The trigger keeps
-- migration 0032's rule that a question about an action is no answer.
ALTER TABLE "overview_days" ADD COLUMN "clarified" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "invite_token_sealed" text;--> statement-breakpoint
CREATE OR REPLACE FUNCTION overview_days_after_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO overview_days AS o (account_id, day, shard, answered, fell_back, handed_off, answered_after_choice, clarified)
  SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, pg_backend_pid() % 16,
         count(*) FILTER (WHERE NOT fallback AND NOT handoff AND choices IS NULL AND NOT after_choice AND NOT greeting AND action_pending IS NULL),
         count(*) FILTER (WHERE fallback), count(*) FILTER (WHERE handoff), count(*) FILTER (WHERE after_choice),
         count(*) FILTER (WHERE choices IS NOT NULL AND NOT fallback AND NOT handoff)
  FROM inserted_messages
  WHERE origin = 'agent'
  GROUP BY 1, 2
  ON CONFLICT (account_id, day, shard)
  DO UPDATE SET answered = o.answered + excluded.answered, fell_back = o.fell_back + excluded.fell_back,
                handed_off = o.handed_off + excluded.handed_off,
                answered_after_choice = o.answered_after_choice + excluded.answered_after_choice,
                clarified = o.clarified + excluded.clarified;
  RETURN NULL;
END $$;--> statement-breakpoint
INSERT INTO overview_days AS o (account_id, day, clarified)
SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, count(*) FROM messages
WHERE origin = 'agent' AND choices IS NOT NULL AND NOT fallback AND NOT handoff GROUP BY 1, 2
ON CONFLICT (account_id, day, shard) DO UPDATE SET clarified = o.clarified + excluded.clarified;
