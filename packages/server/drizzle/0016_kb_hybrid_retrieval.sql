-- Knowledge-base retrieval in memory (knowledge/knowledge-index.ts): every entry write bumps the base's
-- entries_version, so each process rebuilds its copy of the base only when the base changed. Entries keep the
-- sentence vectors of their question and synonyms (one after the other) and of their answer, computed when the
-- entry is written (a background job), never at question time; vectors_model names what computed them.
ALTER TABLE "knowledge_bases" ADD COLUMN "entries_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_entries" ADD COLUMN "question_vectors" real[];--> statement-breakpoint
ALTER TABLE "knowledge_entries" ADD COLUMN "answer_vector" real[];--> statement-breakpoint
ALTER TABLE "knowledge_entries" ADD COLUMN "vectors_model" text;
