// Test data put straight into the database, for tests of features that read chats without creating them.
import { channels, chats } from '../../src/db/schema.ts';
import type { Database } from '../../src/db/client.ts';
import { newId } from '../../src/lib/ids.ts';

export interface SeededChat {
  id: string;
  uniqueId: string;
  channelId: string;
  externalChatId: string;
}

/** An API channel of the account (created once per call unless `channelId` is given) and a chat in it. */
export async function seedChat(
  db: Database,
  accountId: string,
  options: { channelId?: string; externalChatId?: string; dialogName?: string; lastMessageAt?: Date; taskDone?: boolean } = {},
): Promise<SeededChat> {
  const channelId = options.channelId ?? `cc:seed${newId().replaceAll('-', '').slice(0, 20)}`;
  if (!options.channelId) {
    await db.insert(channels).values({
      id: channelId,
      accountId,
      kind: 'custom',
      name: 'Seeded channel',
      settings: { behavior: '', role: '', task: '', greeting: '', isActive: true, aiLang: 'en' },
      agentEngine: { kind: 'knowledge-base' },
    });
  }
  const externalChatId = options.externalChatId ?? `ext-${newId()}`;
  const id = newId();
  const uniqueId = `${channelId}:${externalChatId}`;
  await db.insert(chats).values({
    id,
    accountId,
    channelId,
    channelKind: 'custom',
    externalChatId,
    uniqueId,
    dialogName: options.dialogName ?? 'Seeded visitor',
    lastText: 'hello',
    ...(options.lastMessageAt ? { lastMessageAt: options.lastMessageAt } : {}),
    taskDone: options.taskDone ?? false,
  });
  return { id, uniqueId, channelId, externalChatId };
}
