-- Clarifying choices of the knowledge-base engine (issue #35): the channel's number of options and prompt, the
-- options an agent reply offered (messages.choices: what the customer's next message may pick), an agent reply that
-- answered a pick (messages.after_choice), the overview's daily "answered after a choice", kept apart from direct
-- answers by the agent-reply trigger of 0009/0021, and the phrasings customers chose, learned per entry.
ALTER TABLE "channels" ADD COLUMN "clarify_choices" integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "clarify_prompt" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "choices" jsonb;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "after_choice" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "overview_days" ADD COLUMN "answered_after_choice" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE TABLE "knowledge_learned_questions" (
  "id" uuid PRIMARY KEY NOT NULL,
  "entry_id" uuid NOT NULL REFERENCES "knowledge_entries"("id") ON DELETE CASCADE,
  "text" text NOT NULL,
  "text_key" text NOT NULL,
  "picks" integer DEFAULT 1 NOT NULL,
  "created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "knowledge_learned_questions_entry_key" ON "knowledge_learned_questions" USING btree ("entry_id","text_key");--> statement-breakpoint
-- Agent replies only: answered directly (neither a fallback, a handoff, a clarification nor an answer to a pick),
-- fell back, handed off, answered after a choice.
CREATE OR REPLACE FUNCTION overview_days_after_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO overview_days AS o (account_id, day, shard, answered, fell_back, handed_off, answered_after_choice)
  SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, pg_backend_pid() % 16,
         count(*) FILTER (WHERE NOT fallback AND NOT handoff AND choices IS NULL AND NOT after_choice),
         count(*) FILTER (WHERE fallback), count(*) FILTER (WHERE handoff), count(*) FILTER (WHERE after_choice)
  FROM inserted_messages
  WHERE origin = 'agent'
  GROUP BY 1, 2
  ON CONFLICT (account_id, day, shard)
  DO UPDATE SET answered = o.answered + excluded.answered, fell_back = o.fell_back + excluded.fell_back,
                handed_off = o.handed_off + excluded.handed_off,
                answered_after_choice = o.answered_after_choice + excluded.answered_after_choice;
  RETURN NULL;
END $$;
