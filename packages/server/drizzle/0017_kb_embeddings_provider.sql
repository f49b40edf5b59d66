-- An optional OpenAI-compatible embeddings provider per knowledge base (issue 17 item 5): its base URL and model,
-- and its API key sealed like the channel secrets (lib/secret-box.ts). All three null: the built-in encoder.
ALTER TABLE "knowledge_bases" ADD COLUMN "embeddings_base_url" text;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "embeddings_model" text;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "embeddings_api_key" text;
