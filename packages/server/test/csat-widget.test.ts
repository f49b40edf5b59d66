// CSAT through the widget over HTTP and WebSocket (docs/architecture.md, Outcomes and reports): a conversation that
// ends (the task marked done, or quiet time by the sweep) sends the frame a `csat` frame; a frame that loads later is
// offered the last ended, unrated conversation; the visitor rates it once through POST /widget/v1/csat (validated,
// their own chat's only); 4 or 5 confirms a resolution by the agent, and the reports count it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LedgerConversation, ReportSummary } from '@parley/contracts';
import { WebSocket } from 'ws';
import { eventually } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

const SITE = 'https://shop.example';
const MINUTE = 60_000;

interface Frame {
  type: string;
  conversationId?: string;
}

describe('CSAT in the widget', () => {
  let t: TestApp;
  let offset = 0;
  const clock = { now: () => new Date(Date.now() + offset) };
  const today = () => clock.now().toISOString().slice(0, 10);
  before(async () => {
    t = await startTestApp({ clock, conversationSweepMs: 100 });
  });
  after(async () => {
    await t.close();
  });

  async function setUp() {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, {
      body: { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
    });
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/widget/connect/', {
      body: { name: 'Site chat', knowledgeBaseId: base.body.id, clarifyChoices: 0, widget: { allowedOrigins: [SITE] } },
    });
    assert.equal(channel.status, 201, channel.text);
    const start = await t.request<{ token: string; visitorId: string }>('POST', '/widget/v1/session', { body: { origin: SITE, channelId: channel.body.id } });
    assert.equal(start.status, 200, start.text);
    const auth = { authorization: `Bearer ${start.body.token}` };
    const send = async (text: string) => {
      const res = await t.request('POST', '/widget/v1/messages', { body: { text }, headers: auth });
      assert.equal(res.status, 201, res.text);
    };
    const rate = (body: Record<string, unknown>, token = start.body.token) =>
      t.request<{ success?: boolean; message?: string }>('POST', '/widget/v1/csat', { body, headers: { authorization: `Bearer ${token}` } });
    const chatId = async () => {
      const chats = await t.console<{ chats: { id: string; chatId: string }[] }>(user.token, 'GET', '/chat/all-chats/');
      const found = chats.body.chats.find((c) => c.chatId === start.body.visitorId);
      assert.ok(found);
      return found.id;
    };
    const ledger = async () =>
      (await t.console<{ conversations: LedgerConversation[] }>(user.token, 'GET', '/reports/conversations', { query: { from: today(), to: today() } })).body
        .conversations;
    return { user, channelId: channel.body.id, start, send, rate, chatId, ledger };
  }

  function openLive(token: string) {
    const socket = new WebSocket(`${t.url.replace('http', 'ws')}/widget/v1/live`);
    const frames: Frame[] = [];
    socket.on('message', (data) => frames.push(JSON.parse(String(data)) as Frame));
    const opened = new Promise<void>((resolve, reject) => {
      socket.once('open', () => {
        socket.send(JSON.stringify({ type: 'auth', token }));
        resolve();
      });
      socket.once('error', reject);
    });
    return { socket, frames, opened, csat: () => frames.filter((f) => f.type === 'csat') };
  }

  test('done: a live `csat` frame; the rating once, validated, confirming the agent; the reports count it', async () => {
    const s = await setUp();
    await s.send('How long does shipping take?');
    const chatId = await s.chatId();
    await eventually(async () => (await s.ledger()).some((c) => c.messages === 2), 10_000);
    const live = openLive(s.start.body.token);
    await live.opened;
    await eventually(async () => live.frames.some((f) => f.type === 'ready'), 10_000);
    assert.deepEqual(live.csat(), [], 'nothing to rate while the conversation runs');

    assert.equal((await t.console(s.user.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } })).status, 200);
    const [frame] = await eventually(async () => live.csat().length > 0 && live.csat(), 10_000);
    const [conversation] = await s.ledger();
    assert.equal(frame?.conversationId, conversation?.id);
    assert.equal(conversation?.outcome, 'resolved_by_agent');
    const conversationId = conversation?.id ?? '';

    for (const bad of [{ conversationId, rating: 0 }, { conversationId, rating: 6 }, { conversationId, rating: 4.5 }, { conversationId }, { conversationId, rating: 4, comment: 'x'.repeat(1001) }, { conversationId, rating: 4, extra: 1 }]) {
      assert.equal((await s.rate(bad)).status, 400, JSON.stringify(bad).slice(0, 80));
    }
    // Another visitor cannot rate it (not their chat's).
    const stranger = await t.request<{ token: string }>('POST', '/widget/v1/session', { body: { origin: SITE, channelId: s.channelId } });
    const refused = await s.rate({ conversationId, rating: 1 }, stranger.body.token);
    assert.equal(refused.status, 404, refused.text);
    assert.equal(refused.body.message, 'No conversation to rate');

    const rated = await s.rate({ conversationId, rating: 4, comment: 'Quick, thanks' });
    assert.equal(rated.status, 200, rated.text);
    assert.deepEqual(rated.body, { success: true });
    const again = await s.rate({ conversationId, rating: 5 });
    assert.equal(again.status, 409);
    assert.equal(again.body.message, 'This conversation is already rated');

    const [after] = await s.ledger();
    assert.equal(after?.csat, 4);
    assert.equal(after?.confirmed, true);
    const summary = await t.console<ReportSummary>(s.user.token, 'GET', '/reports/summary', { query: { from: today(), to: today() } });
    assert.equal(summary.body.outcomes.resolvedByAgentConfirmed, 1);
    assert.deepEqual(summary.body.csat.agent, { count: 1, average: 4 });

    // A frame that loads now is not asked again (rated).
    const reloaded = openLive(s.start.body.token);
    await reloaded.opened;
    await eventually(async () => reloaded.frames.some((f) => f.type === 'ready'), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(reloaded.csat(), []);
    live.socket.close();
    reloaded.socket.close();
  });

  test('quiet time: the sweep ends it and the frame hears; a frame loading later is asked; a rating of 2 confirms nothing', async () => {
    const s = await setUp();
    assert.equal((await t.console(s.user.token, 'PUT', '/account/settings/', { body: { resolutionQuietMinutes: 1 } })).status, 200);
    await s.send('Qwerty zxcvb?');
    await eventually(async () => (await s.ledger()).some((c) => c.messages === 2), 10_000);
    const live = openLive(s.start.body.token);
    await live.opened;
    await eventually(async () => live.frames.some((f) => f.type === 'ready'), 10_000);
    offset += 2 * MINUTE;
    const [frame] = await eventually(async () => live.csat().length > 0 && live.csat(), 10_000);
    const [conversation] = await s.ledger();
    assert.equal(conversation?.outcome, 'unanswered');
    assert.equal(frame?.conversationId, conversation?.id);
    live.socket.close();

    // The frame loads again: the ended, unrated conversation is offered at once.
    const reloaded = openLive(s.start.body.token);
    await reloaded.opened;
    const [offered] = await eventually(async () => reloaded.csat().length > 0 && reloaded.csat(), 10_000);
    assert.equal(offered?.conversationId, conversation?.id);
    assert.equal((await s.rate({ conversationId: conversation?.id, rating: 2 })).status, 200);
    const [rated] = await s.ledger();
    assert.equal(rated?.csat, 2);
    assert.equal(rated?.confirmed, false);
    reloaded.socket.close();
  });
});
