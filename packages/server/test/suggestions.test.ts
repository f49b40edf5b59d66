// Reply suggestions in the Inbox (issue #44, item 3): GET /console/v1/chat/suggestions/{chatId}/ over HTTP against a
// real database — the knowledge base's entries and passages and the account's saved replies for the last customer
// message, ranked by the agent's retrieval, each with its source; a draft of the channel's model from a real local
// model server; a failing model leaves the retrieved ones; nothing is sent; another account's chat is 404.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reply, startFakeLlm, type FakeLlm } from './support/fake-llm.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const COMPLETIONS = '/v1/chat/completions';
type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;
interface Suggestion {
  text: string;
  source: 'entry' | 'passage' | 'saved_reply' | 'model';
  ref: string | null;
}
const HOURS = 'We are open from 10:00 to 22:00 every day.';
const DELIVERY = 'We deliver within 3 days anywhere in the country.';
const SAVED_HOURS = 'Our opening hours are 10:00 to 22:00, weekends included.';

describe('reply suggestions', { concurrency: true }, () => {
  let t: TestApp;
  let r: Receiver;
  const closers: (() => Promise<void>)[] = [];
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    r = await startReceiver();
  });
  after(async () => {
    await t.close();
    await r.close();
    await Promise.all(closers.map((close) => close()));
  });

  /** A console user with a knowledge base of two entries, two saved replies and a custom channel whose agent is silent. */
  async function setUp(engine?: Record<string, unknown>) {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Shop facts' } });
    assert.equal(base.status, 201, base.text);
    const entries: Record<string, string> = {};
    for (const [question, answer] of [
      ['What are your opening hours?', HOURS],
      ['Do you deliver?', DELIVERY],
    ] as const) {
      const entry = await t.console<{ id: string }>(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: { question, answer } });
      assert.equal(entry.status, 201, entry.text);
      entries[answer] = entry.body.id;
    }
    const saved: Record<string, string> = {};
    for (const [shortCode, text] of [
      ['hours', SAVED_HOURS],
      ['refund', 'Refunds reach your card within 5 working days.'],
    ] as const) {
      const created = await t.console<{ id: string }>(user.token, 'POST', '/canned-responses/', { body: { shortCode, text } });
      assert.equal(created.status, 201, created.text);
      saved[text] = created.body.id;
    }
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Parley Shop', webhookUrl: r.url, knowledgeBaseId: base.body.id, settings: { isActive: false, aiLang: 'en' }, ...(engine ? { agentEngine: engine } : {}) },
    });
    assert.equal(channel.status, 201, channel.text);
    const channelId = channel.body.id;
    const send = async (externalChatId: string, text: string, role: 'user' | 'assistant' = 'user') => {
      const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId, externalChatId, role, text },
      });
      assert.equal(res.status, 201, res.text);
    };
    const chatId = async () => {
      const list = await t.console<{ chats: { id: string }[] }>(user.token, 'GET', '/chat/all-chats/', { query: { channelId } });
      assert.equal(list.status, 200, list.text);
      const [chat] = list.body.chats;
      assert.ok(chat, 'the chat is listed');
      return chat.id;
    };
    const suggestions = (id: string, as: User = user) => t.console<{ suggestions: Suggestion[] }>(as.token, 'GET', `/chat/suggestions/${id}/`);
    return { user, entries, saved, send, chatId, suggestions };
  }

  async function fakeLlm(): Promise<FakeLlm> {
    const fake = await startFakeLlm();
    closers.push(() => fake.close());
    return fake;
  }

  test('entries and saved replies ranked for the last customer message, each with its source; nothing is sent', async () => {
    const s = await setUp();
    await s.send('c1', 'Do you deliver?');
    await s.send('c1', 'Thanks. And what are your opening hours on weekends?');
    const id = await s.chatId();
    const before = await t.console<{ messages: unknown[] }>(s.user.token, 'GET', `/chat/messages/${id}/`);
    const res = await s.suggestions(id);
    assert.equal(res.status, 200, res.text);
    const { suggestions } = res.body;
    assert.ok(suggestions.length <= 3, `at most 3 retrieved: ${res.text}`);
    // The two about opening hours lead (the saved reply shares more of the message's words); the delivery entry,
    // about the earlier message, comes after them if at all.
    assert.deepEqual(
      new Set(suggestions.slice(0, 2).map((one) => JSON.stringify(one))),
      new Set([
        JSON.stringify({ text: HOURS, source: 'entry', ref: s.entries[HOURS] }),
        JSON.stringify({ text: SAVED_HOURS, source: 'saved_reply', ref: s.saved[SAVED_HOURS] }),
      ]),
      res.text,
    );
    assert.ok(!suggestions.some((one) => one.text.startsWith('Refunds')), 'a saved reply sharing no word is not');
    assert.ok(!suggestions.some((one) => one.source === 'model'), 'no model: no draft');
    const afterwards = await t.console<{ messages: unknown[] }>(s.user.token, 'GET', `/chat/messages/${id}/`);
    assert.deepEqual(afterwards.body, before.body, 'nothing was sent or written');
  });

  test("another account's chat, an unknown id and a chat with no customer message", async () => {
    const s = await setUp();
    await s.send('c2', 'What are your opening hours?');
    const id = await s.chatId();
    const stranger = await t.createConsoleUser();
    for (const res of [await s.suggestions(id, stranger), await s.suggestions('00000000-0000-7000-8000-000000000000'), await s.suggestions('not-a-chat')]) {
      assert.deepEqual([res.status, res.body], [404, { message: 'Chat not found', statusCode: 404 }]);
    }
    const anonymous = await t.request('GET', `/console/v1/chat/suggestions/${id}/`);
    assert.equal(anonymous.status, 401);
    const other = await setUp();
    await other.send('c3', 'Hello from the team', 'assistant');
    const quiet = await other.suggestions(await other.chatId());
    assert.deepEqual([quiet.status, quiet.body], [200, { suggestions: [] }]);
  });

  test("an openai-compatible channel adds its model's draft; a failing model leaves the retrieved ones", async () => {
    const fake = await fakeLlm();
    const s = await setUp({ kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'draft-model', apiKey: 'sk-draft-1', timeoutSeconds: 10 });
    fake.script(COMPLETIONS, reply.text('  We open at 10:00 and close at 22:00, weekends too.  '));
    await s.send('c4', 'What are your opening hours?');
    const id = await s.chatId();
    const res = await s.suggestions(id);
    assert.equal(res.status, 200, res.text);
    const { suggestions } = res.body;
    assert.deepEqual(suggestions.at(-1), { text: 'We open at 10:00 and close at 22:00, weekends too.', source: 'model', ref: null });
    assert.deepEqual(suggestions[0], { text: HOURS, source: 'entry', ref: s.entries[HOURS] });
    assert.ok(suggestions.length <= 4);
    assert.equal(fake.to(COMPLETIONS).length, 1, 'one request to the model');
    const [request] = fake.to(COMPLETIONS);
    assert.equal(request?.headers.authorization, 'Bearer sk-draft-1');
    const body = request?.json as { model: string; tools?: unknown; messages: { role: string; content: string }[] };
    assert.equal(body.model, 'draft-model');
    assert.equal(body.tools, undefined, 'a draft offers no tool');
    assert.equal(body.messages[0]?.role, 'system');
    assert.match(body.messages[0]?.content ?? '', /We are open from 10:00 to 22:00 every day\./, 'the knowledge goes with the prompt');
    assert.deepEqual(body.messages.at(-1), { role: 'user', content: 'What are your opening hours?' });

    fake.script(COMPLETIONS, reply.status(500));
    const failed = await s.suggestions(id);
    assert.equal(failed.status, 200, failed.text);
    assert.deepEqual(failed.body.suggestions, suggestions.slice(0, -1), 'the retrieved ones, no draft');
    assert.equal(fake.to(COMPLETIONS).length, 2, 'a draft is tried once');
  });
});
