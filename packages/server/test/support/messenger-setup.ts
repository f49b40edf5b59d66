// What the messenger end-to-end tests share: an account with a knowledge base (the agent answers from it, no model
// needed), a customer webhook receiver, and readers of the channel's chats, messages and failed sends.
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { eventually } from './events.ts';
import type { Receiver } from './receiver.ts';
import type { TestApp } from './harness.ts';

export const QUESTION = 'How long does shipping take?';
export const ANSWER = 'Shipping takes 3 to 5 business days.';

export interface InboxChat {
  id: string;
  uniqueId: string;
  chatId: string;
  dialogName: string;
  channelName: string;
  isGroup: boolean;
  photo_100: string | null;
}
export interface InboxMessage {
  id: string;
  role: string;
  senderName: string | null;
  text: string;
  attachments: { contentType: string; url: string; fileSize: number; name: string }[];
}
export interface SendFailure {
  id: string;
  channelId: string;
  channelType: string;
  chatId: string;
  messageId: string;
  error: string;
  attempts: number;
  partsSent: number;
  createdAt: string;
  failedAt: string;
}

export async function messengerAccount(t: TestApp, receiver: Receiver) {
  const user = await t.createConsoleUser();
  const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
  assert.equal(base.status, 201, base.text);
  const entry = await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question: QUESTION, answer: ANSWER } });
  assert.equal(entry.status, 201, entry.text);

  const connect = (kind: string, credentials: Record<string, string>, extra: Record<string, unknown> = {}) =>
    t.console<Record<string, unknown> & { id: string }>(user.token, 'POST', `/channel/${kind}/connect/`, {
      body: { name: `Shop on ${kind}`, credentials, knowledgeBaseId: base.body.id, webhookUrl: `${receiver.url}/hook`, ...extra },
    });

  const chats = async (channelId: string): Promise<InboxChat[]> => {
    const res = await t.console<{ chats: InboxChat[] }>(user.token, 'GET', '/chat/all-chats/', { query: { channelId } });
    assert.equal(res.status, 200, res.text);
    return res.body.chats;
  };
  const messages = async (chatId: string): Promise<InboxMessage[]> => {
    const res = await t.console<{ messages: InboxMessage[] }>(user.token, 'GET', `/chat/messages/${chatId}/`);
    assert.equal(res.status, 200, res.text);
    return res.body.messages;
  };
  /** The chat of a messenger chat id, once it exists. */
  const chatOf = (channelId: string, externalChatId: string) =>
    eventually(async () => (await chats(channelId)).find((chat) => chat.chatId === externalChatId), 10_000);
  const failures = async (channelId?: string): Promise<SendFailure[]> => {
    const res = await t.console<{ failures: SendFailure[] }>(user.token, 'GET', '/channels/failures/', {
      query: channelId ? { channelId } : {},
    });
    assert.equal(res.status, 200, res.text);
    return res.body.failures;
  };
  const teamReply = async (chatId: string, text: string) => {
    const res = await t.console<{ id: string }>(user.token, 'POST', `/chat/messages/${chatId}/`, { body: { text } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const ban = async (uniqueId: string) => {
    const res = await t.api(user.key, '/chats/chat/ban', { uniqueId });
    assert.deepEqual(res.body, { success: true });
  };
  return { user, baseId: base.body.id, connect, chats, messages, chatOf, failures, teamReply, ban };
}

/** Rows stored for a channel: chats, messages and events (a rejected request stores none). */
export async function storedFor(t: TestApp, channelId: string) {
  const [row] = await queryRows<{ chats: number; messages: number; events: number }>(
    t.database.db,
    sql`select (select count(*) from chats where channel_id = ${channelId})::int as chats,
               (select count(*) from messages m join chats c on c.id = m.chat_id where c.channel_id = ${channelId})::int as messages,
               (select count(*) from events where channel_id = ${channelId})::int as events`,
  );
  return row;
}

/**
 * Nothing is on its way to a customer: no agent reply queued or running, no message waiting for the agent, no
 * messenger send queued or running (one statement: one snapshot, so no gap between a reply and its send job).
 */
export async function sendsIdle(t: TestApp): Promise<boolean> {
  const [row] = await queryRows<{ busy: number }>(
    t.database.db,
    sql`select (select count(*) from jobs where kind in ('agent.reply', 'messenger.send'))::int
             + (select count(*) from messages where awaiting_agent)::int as busy`,
  );
  return row?.busy === 0;
}

/** A stored file, fetched by the path of its URL (test apps' PUBLIC_URL is not this server). */
export async function fileBytes(t: TestApp, url: string): Promise<Buffer> {
  const response = await fetch(new URL(new URL(url).pathname, t.url));
  assert.equal(response.status, 200);
  return Buffer.from(await response.arrayBuffer());
}
