-- The file store the processes on this database share (issue #32, 7): the identity of the first local store
-- (a random id kept in DATA_DIR/files/.store-id) that started on it. A process whose DATA_DIR holds another one
-- says so at start: files stored by one process would be missing for the others.
CREATE TABLE "file_store" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"store_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "file_store_singleton_check" CHECK ("file_store"."singleton")
);
