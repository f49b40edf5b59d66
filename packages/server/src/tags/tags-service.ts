// Tags: the spec's tag endpoints and their transitions, scoped to the API key's account. Names are matched
// exactly (case-sensitive, untrimmed).
import type { Tag } from '@parley/contracts';
import { Errors } from '../errors.ts';
import { isUuid, newId } from '../lib/ids.ts';
import type { TagsStore } from './tags-store.ts';

export interface TagsServiceDeps {
  store: Pick<TagsStore, 'list' | 'chatExists' | 'findTagId' | 'insertTagIfMissing' | 'attach' | 'detach' | 'deleteTag'>;
  /** Tells open Inboxes that a chat's tags changed (their lists filter by tag). */
  chatChanged?: (accountId: string, chatId: string) => Promise<void>;
}

// A tag can only vanish under tag-chat when a concurrent remove deletes it; a few retries outlast any such race.
const TAG_CHAT_ATTEMPTS = 3;

export function createTagsService({ store, chatChanged = async () => {} }: TagsServiceDeps) {
  async function requireChat(accountId: string, chatId: string): Promise<void> {
    if (!isUuid(chatId) || !(await store.chatExists(accountId, chatId))) throw Errors.chatNotFound();
  }

  async function requireTag(accountId: string, name: string): Promise<string> {
    const tagId = await store.findTagId(accountId, name);
    if (tagId === undefined) throw Errors.tagNotFound();
    return tagId;
  }

  /** Insert-if-missing, then read: concurrent callers all end with the one row the unique index lets through. */
  async function ensureTag(accountId: string, name: string): Promise<string | undefined> {
    await store.insertTagIfMissing({ id: newId(), accountId, name });
    return store.findTagId(accountId, name);
  }

  return {
    async listTags(accountId: string, query: { limit?: number; offset?: number }): Promise<{ tags: Tag[] }> {
      const rows = await store.list(accountId, { limit: query.limit ?? 50, offset: query.offset ?? 0 });
      return { tags: rows.map((row) => ({ id: row.id, name: row.name, chatsWithTags: row.chatIds })) };
    },

    async createTag(accountId: string, name: string) {
      if (!(await store.insertTagIfMissing({ id: newId(), accountId, name }))) throw Errors.tagAlreadyExist();
      return { tag: name, success: true as const };
    },

    /** Attaches the tag to the chat, creating the tag first when the account has none of that name. */
    async tagChat(accountId: string, chatId: string, name: string) {
      await requireChat(accountId, chatId);
      for (let attempt = 0; attempt < TAG_CHAT_ATTEMPTS; attempt += 1) {
        const tagId = await ensureTag(accountId, name);
        if (tagId === undefined) continue;
        const result = await store.attach(accountId, tagId, chatId);
        if (result === 'attached') {
          await chatChanged(accountId, chatId);
          return { id: tagId, success: true as const };
        }
        if (result === 'alreadyAttached') throw Errors.tagAlreadyExist();
        if (result === 'chatGone') throw Errors.chatNotFound();
      }
      throw new Error(`tag-chat: the tag was removed concurrently on each of ${TAG_CHAT_ATTEMPTS} attempts`);
    },

    /** Detaches the tag from the chat; the tag stays in the account. */
    async removeTagFromChat(accountId: string, chatId: string, name: string) {
      await requireChat(accountId, chatId);
      const tagId = await requireTag(accountId, name);
      if (!(await store.detach(tagId, chatId))) throw Errors.tagNotFound();
      await chatChanged(accountId, chatId);
      return { id: tagId, success: true as const };
    },

    /** Deletes the tag from the account and from every chat. */
    async removeTag(accountId: string, name: string) {
      if (!(await store.deleteTag(accountId, name))) throw Errors.tagNotFound();
      return { tag: name, success: true as const };
    },
  };
}

export type TagsService = ReturnType<typeof createTagsService>;
