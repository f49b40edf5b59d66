-- The Inbox's search (issue #44, 1): PostgreSQL full-text search over messages, notes and the customer's name and
-- e-mail. Written by hand (a generated column, a function, a trigger, expression indexes).
-- 1. channels.search_config: the text-search configuration of the channel's aiLang (simple when PostgreSQL has no
--    stemmer for it), generated from its settings.
-- 2. messages and chat_notes carry the configuration of their channel when written (search_config) and their
--    tsvector (search_vector, generated from it and the text, so an erased text is unsearchable at once); a GIN
--    index on it. The ingest statement sets search_config itself; a BEFORE INSERT trigger fills it for the other
--    writers (replies, team messages, notes) only when it is missing.
-- 3. chats: a GIN expression index on the customer's name and e-mail (simple configuration).
CREATE FUNCTION parley_search_config(lang text) RETURNS regconfig LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE split_part(lower(coalesce(lang, '')), '-', 1)
    WHEN 'ar' THEN 'arabic'::regconfig WHEN 'da' THEN 'danish'::regconfig WHEN 'nl' THEN 'dutch'::regconfig
    WHEN 'en' THEN 'english'::regconfig WHEN 'fi' THEN 'finnish'::regconfig WHEN 'fr' THEN 'french'::regconfig
    WHEN 'de' THEN 'german'::regconfig WHEN 'el' THEN 'greek'::regconfig WHEN 'hu' THEN 'hungarian'::regconfig
    WHEN 'id' THEN 'indonesian'::regconfig WHEN 'ga' THEN 'irish'::regconfig WHEN 'it' THEN 'italian'::regconfig
    WHEN 'lt' THEN 'lithuanian'::regconfig WHEN 'ne' THEN 'nepali'::regconfig WHEN 'no' THEN 'norwegian'::regconfig
    WHEN 'nb' THEN 'norwegian'::regconfig WHEN 'nn' THEN 'norwegian'::regconfig WHEN 'pt' THEN 'portuguese'::regconfig
    WHEN 'ro' THEN 'romanian'::regconfig WHEN 'ru' THEN 'russian'::regconfig WHEN 'es' THEN 'spanish'::regconfig
    WHEN 'sv' THEN 'swedish'::regconfig WHEN 'ta' THEN 'tamil'::regconfig WHEN 'tr' THEN 'turkish'::regconfig
    ELSE 'simple'::regconfig END
$$;
--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "search_config" regconfig GENERATED ALWAYS AS (parley_search_config(settings ->> 'aiLang')) STORED;
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "search_config" regconfig;
--> statement-breakpoint
UPDATE "messages" m SET search_config = ch.search_config FROM chats c JOIN channels ch ON ch.id = c.channel_id WHERE c.id = m.chat_id;
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (to_tsvector(coalesce(search_config, 'simple'::regconfig), text)) STORED;
--> statement-breakpoint
CREATE INDEX "messages_search_idx" ON "messages" USING gin ("search_vector");
--> statement-breakpoint
ALTER TABLE "chat_notes" ADD COLUMN "search_config" regconfig;
--> statement-breakpoint
UPDATE "chat_notes" n SET search_config = ch.search_config FROM chats c JOIN channels ch ON ch.id = c.channel_id WHERE c.id = n.chat_id;
--> statement-breakpoint
ALTER TABLE "chat_notes" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (to_tsvector(coalesce(search_config, 'simple'::regconfig), text)) STORED;
--> statement-breakpoint
CREATE INDEX "chat_notes_search_idx" ON "chat_notes" USING gin ("search_vector");
--> statement-breakpoint
CREATE FUNCTION parley_fill_search_config() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT ch.search_config INTO NEW.search_config FROM chats c JOIN channels ch ON ch.id = c.channel_id WHERE c.id = NEW.chat_id;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER messages_search_config BEFORE INSERT ON messages FOR EACH ROW WHEN (NEW.search_config IS NULL) EXECUTE FUNCTION parley_fill_search_config();
--> statement-breakpoint
CREATE TRIGGER chat_notes_search_config BEFORE INSERT ON chat_notes FOR EACH ROW WHEN (NEW.search_config IS NULL) EXECUTE FUNCTION parley_fill_search_config();
--> statement-breakpoint
CREATE INDEX "chats_search_idx" ON "chats" USING gin (to_tsvector('simple'::regconfig, dialog_name || ' ' || coalesce(email, '')));
