// SQL of tags and their attachment to chats. Every statement is scoped by the account: another account's
// tag or chat does not exist here.
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { isForeignKeyViolation } from '../db/errors.ts';
import { preparedRows } from '../db/prepared.ts';
import { chats, chatTags, tags } from '../db/schema.ts';

export interface TagRow {
  id: string;
  name: string;
  chatIds: string[];
}

/** The outcome of attaching a tag to a chat; `tagGone` / `chatGone`: deleted by a concurrent request meanwhile. */
export type AttachResult = 'attached' | 'alreadyAttached' | 'tagGone' | 'chatGone';

/**
 * The page of tags is chosen first, ordered by the count kept in `tags.chat_count` (migration 0005's triggers), and
 * only its tags' chat ids are read, from chat_tags' primary key in chat-id order. `COLLATE "C"`: the same order on
 * every server, whatever collation its database was created with.
 */
const LIST_TAGS = `SELECT t.id, t.name,
    coalesce((SELECT json_agg(ct.chat_id ORDER BY ct.chat_id) FROM chat_tags ct WHERE ct.tag_id = t.id), '[]') AS "chatIds"
  FROM tags t WHERE t.account_id = $1
  ORDER BY t.chat_count DESC, t.name COLLATE "C", t.id
  LIMIT $2 OFFSET $3`;

export function createTagsStore(db: Executor) {
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
      return preparedRows<TagRow>(db, { name: 'tags_list', text: LIST_TAGS, values: [accountId, page.limit, page.offset] });
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
