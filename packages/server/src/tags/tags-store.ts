// SQL of tags and their attachment to chats. Every statement is scoped by the account: another account's
// tag or chat does not exist here.
import { and, eq } from 'drizzle-orm';
import type { Executor, PreparedQuery, PreparedStatement } from '../db/client.ts';
import { isForeignKeyViolation } from '../db/errors.ts';
import { chats, chatTags, tags } from '../db/schema.ts';

export interface TagRow {
  id: string;
  name: string;
  chatIds: string[];
}

/** The outcome of attaching a tag to a chat; `tagGone` / `chatGone`: deleted by a concurrent request meanwhile. */
export type AttachResult = 'attached' | 'alreadyAttached' | 'tagGone' | 'chatGone';

/**
 * The tag list: the page of tags read by their chat count (kept by triggers, migration 0005), then only the page's
 * tags' chats gathered; a fixed statement (no query building per request).
 */
const TAG_PAGE: PreparedStatement = {
  name: 'parley_tag_page_v1',
  text: `WITH page AS (
    SELECT id, name, chat_count FROM tags WHERE account_id = $1
    ORDER BY chat_count DESC, name COLLATE "C", id LIMIT $2 OFFSET $3)
  SELECT page.id, page.name,
         coalesce((SELECT json_agg(chat_id ORDER BY chat_id) FROM chat_tags WHERE tag_id = page.id), '[]'::json) AS "chatIds"
  FROM page ORDER BY page.chat_count DESC, page.name COLLATE "C", page.id`,
};

export function createTagsStore(db: Executor, query: PreparedQuery) {
  async function chatExists(accountId: string, chatId: string): Promise<boolean> {
    const rows = await db
      .select({ id: chats.id })
      .from(chats)
      .where(and(eq(chats.accountId, accountId), eq(chats.id, chatId)));
    return rows.length > 0;
  }

  return {
    /** Tags with the ids of their chats: most used first, then name (code-point order), then id. */
    async list(accountId: string, page: { limit: number; offset: number }): Promise<TagRow[]> {
      return query<TagRow>(TAG_PAGE, [accountId, page.limit, page.offset]);
    },

    chatExists,

    async findTagId(accountId: string, name: string): Promise<string | undefined> {
      const [row] = await db
        .select({ id: tags.id })
        .from(tags)
        .where(and(eq(tags.accountId, accountId), eq(tags.name, name)));
      return row?.id;
    },

    /** Inserts the tag unless the account has one of that name (unique index `tags_account_name_key`); true when inserted. */
    async insertTagIfMissing(row: { id: string; accountId: string; name: string }): Promise<boolean> {
      const inserted = await db
        .insert(tags)
        .values(row)
        .onConflictDoNothing({ target: [tags.accountId, tags.name] })
        .returning({ id: tags.id });
      return inserted.length > 0;
    },

    /** Attaches a tag to a chat (both already found in the account); the primary key of `chat_tags` settles concurrent attempts. */
    async attach(accountId: string, tagId: string, chatId: string): Promise<AttachResult> {
      try {
        const inserted = await db
          .insert(chatTags)
          .values({ tagId, chatId })
          .onConflictDoNothing({ target: [chatTags.tagId, chatTags.chatId] })
          .returning({ tagId: chatTags.tagId });
        return inserted.length > 0 ? 'attached' : 'alreadyAttached';
      } catch (error) {
        if (!isForeignKeyViolation(error)) throw error;
        return (await chatExists(accountId, chatId)) ? 'tagGone' : 'chatGone';
      }
    },

    /** Detaches a tag from a chat (both already found in the account); false when the chat did not have it. */
    async detach(tagId: string, chatId: string): Promise<boolean> {
      const deleted = await db
        .delete(chatTags)
        .where(and(eq(chatTags.tagId, tagId), eq(chatTags.chatId, chatId)))
        .returning({ tagId: chatTags.tagId });
      return deleted.length > 0;
    },

    /** Deletes the tag (its attachments go with it, ON DELETE CASCADE); false when the account has no such tag. */
    async deleteTag(accountId: string, name: string): Promise<boolean> {
      const deleted = await db
        .delete(tags)
        .where(and(eq(tags.accountId, accountId), eq(tags.name, name)))
        .returning({ id: tags.id });
      return deleted.length > 0;
    },
  };
}

export type TagsStore = ReturnType<typeof createTagsStore>;
