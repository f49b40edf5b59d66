-- Documents of a knowledge base (issue 27): an uploaded file parsed in a background job into passages (text under a
-- heading path, in order), retrieved with the base's entries. Deleting a base or a document deletes its passages.
CREATE TABLE "knowledge_documents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"knowledge_base_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'processing' NOT NULL,
	"error" text,
	"file_key" text,
	"size" integer NOT NULL,
	"passage_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "knowledge_documents_kind_check" CHECK ("knowledge_documents"."kind" in ('pdf', 'docx', 'markdown', 'text', 'html')),
	CONSTRAINT "knowledge_documents_status_check" CHECK ("knowledge_documents"."status" in ('processing', 'ready', 'failed'))
);--> statement-breakpoint
CREATE TABLE "knowledge_passages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"document_id" uuid NOT NULL,
	"knowledge_base_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"heading_path" text[] DEFAULT '{}'::text[] NOT NULL,
	"text" text NOT NULL,
	"heading_vector" real[],
	"text_vector" real[],
	"vectors_model" text
);--> statement-breakpoint
ALTER TABLE "knowledge_documents" ADD CONSTRAINT "knowledge_documents_knowledge_base_id_knowledge_bases_id_fk" FOREIGN KEY ("knowledge_base_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_passages" ADD CONSTRAINT "knowledge_passages_document_id_knowledge_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."knowledge_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_passages" ADD CONSTRAINT "knowledge_passages_knowledge_base_id_knowledge_bases_id_fk" FOREIGN KEY ("knowledge_base_id") REFERENCES "public"."knowledge_bases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "knowledge_documents_base_name_idx" ON "knowledge_documents" USING btree ("knowledge_base_id","name");--> statement-breakpoint
CREATE INDEX "knowledge_passages_base_idx" ON "knowledge_passages" USING btree ("knowledge_base_id");--> statement-breakpoint
CREATE UNIQUE INDEX "knowledge_passages_document_position_key" ON "knowledge_passages" USING btree ("document_id","position");
