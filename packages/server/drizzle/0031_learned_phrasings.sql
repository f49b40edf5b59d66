-- Learned phrasings that cannot mislead (issue #42 item 3): a phrasing the team kept stays recorded (kept_at), so
-- the engine knows which synonyms came from customers' picks and answers them directly only while unambiguous; and
-- the chats whose customer chose the entry for the phrasing (how many different customers did).
ALTER TABLE "knowledge_learned_questions" ADD COLUMN "kept_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE TABLE "knowledge_learned_question_chats" (
  "learned_question_id" uuid NOT NULL REFERENCES "knowledge_learned_questions"("id") ON DELETE CASCADE,
  "chat_id" uuid NOT NULL REFERENCES "chats"("id") ON DELETE CASCADE,
  PRIMARY KEY ("learned_question_id", "chat_id")
);--> statement-breakpoint
CREATE INDEX "knowledge_learned_question_chats_chat_id_idx" ON "knowledge_learned_question_chats" USING btree ("chat_id");--> statement-breakpoint
-- The picks made before: a clarification asking the phrasing (its words once case, punctuation and spacing are set
-- aside, as the learned row's key), answered next by the agent with the entry's option.
INSERT INTO "knowledge_learned_question_chats" ("learned_question_id", "chat_id")
WITH asked AS (
  SELECT c.chat_id, c.created_at, c.id, c.choices,
         btrim(regexp_replace(lower(c.choices->>'question'), '[^[:alnum:]]+', ' ', 'g')) AS key
  FROM messages c WHERE c.choices IS NOT NULL
)
SELECT DISTINCT l.id, c.chat_id
FROM knowledge_learned_questions l
JOIN asked c ON c.key = l.text_key
JOIN LATERAL (
  SELECT a.after_choice, a.text FROM messages a
  WHERE a.chat_id = c.chat_id AND a.role = 'assistant' AND (a.created_at, a.id) > (c.created_at, c.id)
  ORDER BY a.created_at, a.id LIMIT 1
) a ON a.after_choice
WHERE EXISTS (
  SELECT 1 FROM jsonb_array_elements(c.choices->'options') o
  WHERE o->>'entryId' = l.entry_id::text AND o->>'reply' = a.text
)
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Which entries customers chose for a phrasing (a kept phrasing is ambiguous when another entry has it too).
CREATE INDEX "knowledge_learned_questions_text_key_idx" ON "knowledge_learned_questions" USING btree ("text_key");
