// A replay of a Telegram channel's history sends nothing to anyone (issue #37): the fake Bot API gets no
// sendMessage, the webhook receiver nothing, and no message, event or job is stored for the channel's chats. And a
// replay on the openai-compatible engine: at most 4 questions asked of the model at once, verdicts by text similarity.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Replay, ReplayItem } from '@parley/contracts';
import { eventually } from './support/events.ts';
import { reply, startFakeLlm } from './support/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { ANSWER, messengerAccount, QUESTION, sendsIdle, storedFor } from './support/messenger-setup.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const TOKEN = '123456789:AAHreplayreplayreplayreplay_token';
let t: TestApp;
let telegram: FakeTelegram;
let receiver: Receiver;

before(async () => {
  telegram = await startFakeTelegram();
  receiver = await startReceiver();
  telegram.addBot(TOKEN, { id: 123456789, username: 'parley_replay_bot' });
  t = await startTestApp({ webhookAllowPrivateNetworks: true, messengerApis: { telegram: telegram.url, meta: 'http://127.0.0.1:9', viber: 'http://127.0.0.1:9' } });
});
after(async () => {
  await t.close();
  await telegram.close();
  await receiver.close();
});

test('a replay of a messenger channel sends nothing: no sendMessage, no webhook, nothing stored in its chats', async () => {
  const account = await messengerAccount(t, receiver);
  const connected = await account.connect('telegram', { botToken: TOKEN }, { disableAgentResponses: true });
  assert.equal(connected.status, 201, connected.text);
  const channelId = connected.body.id;
  const secret = telegram.webhooks.get(TOKEN)?.secretToken ?? '';
  const inbound = await t.request('POST', `/channels/telegram/${channelId}/webhook`, {
    headers: { 'x-telegram-bot-api-secret-token': secret },
    body: {
      update_id: 1,
      message: { message_id: 1, from: { id: 42, is_bot: false, first_name: 'Ada' }, chat: { id: 42, first_name: 'Ada', type: 'private' }, date: Math.floor(Date.now() / 1000), text: QUESTION },
    },
  });
  assert.equal(inbound.status, 200, inbound.text);
  const chat = await account.chatOf(channelId, '42');
  await account.teamReply(chat.id, ANSWER);
  // The team's reply went out to Telegram and the webhook; from here on nothing may.
  await eventually(async () => (telegram.calls('sendMessage').length === 1 && (await sendsIdle(t)) ? true : undefined), 15_000);
  await eventually(async () => (receiver.requests.length >= 1 ? true : undefined), 15_000);
  const sends = telegram.calls('sendMessage').length;
  const hooks = receiver.requests.length;
  const stored = await storedFor(t, channelId);

  const started = await t.console<{ id: string; total: number }>(account.user.token, 'POST', '/replays/', { body: { channelId, source: 'history' } });
  assert.equal(started.status, 202, started.text);
  assert.equal(started.body.total, 1);
  const replay = await eventually(async () => {
    const res = await t.console<Replay>(account.user.token, 'GET', `/replays/${started.body.id}`);
    return res.body.status === 'done' ? res.body : undefined;
  }, 30_000);
  assert.equal(replay.summary.agreesWithTeam, 1);
  const items = await t.console<{ items: ReplayItem[] }>(account.user.token, 'GET', `/replays/${started.body.id}/items`);
  assert.deepEqual(items.body.items.map((i) => [i.question, i.teamAnswer, i.agentReply, i.verdict]), [[QUESTION, ANSWER, ANSWER, 'agrees']]);

  assert.ok(await sendsIdle(t));
  assert.equal(telegram.calls('sendMessage').length, sends);
  assert.equal(receiver.requests.length, hooks);
  assert.deepEqual(await storedFor(t, channelId), stored);
});

test('the openai-compatible engine: at most 4 questions at once, agrees / differs by the texts', async () => {
  const llm = await startFakeLlm();
  try {
    const user = await t.createConsoleUser();
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Model', agentEngine: { kind: 'openai-compatible', baseUrl: `${llm.url}/v1`, model: 'test-model', timeoutSeconds: 30 } },
    });
    assert.equal(channel.status, 201, channel.text);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    llm.script('/v1/chat/completions', reply.after(gate, reply.text('Shipping takes 3 to 5 business days.')));
    const rows = Array.from({ length: 8 }, (_, i) => ({
      question: `How long does shipping take, question ${i}?`,
      answer: i % 2 === 0 ? 'Shipping takes about 3 to 5 business days.' : 'We are closed on Sundays.',
    }));
    const form = new FormData();
    form.append('channelId', channel.body.id);
    form.append('file', new Blob([JSON.stringify(rows)], { type: 'application/json' }), 'rows.json');
    const res = await fetch(`${t.url}/console/v1/replays/`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
    assert.equal(res.status, 202, await res.clone().text());
    const { id } = (await res.json()) as { id: string };
    await eventually(async () => (llm.to('/v1/chat/completions').length >= 4 ? true : undefined), 15_000);
    // Four are waiting for the model: no fifth is asked before one of them is answered.
    assert.equal(llm.to('/v1/chat/completions').length, 4);
    open();
    const replay = await eventually(async () => {
      const got = await t.console<Replay>(user.token, 'GET', `/replays/${id}`);
      return got.body.status === 'done' ? got.body : undefined;
    }, 30_000);
    assert.deepEqual([replay.done, replay.summary.answered, replay.summary.agreesWithTeam, replay.summary.differs], [8, 8, 4, 4]);
    assert.equal(llm.to('/v1/chat/completions').length, 8);
  } finally {
    await llm.close();
  }
});
