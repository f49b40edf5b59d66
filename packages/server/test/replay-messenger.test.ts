// A replay of a Telegram channel's history sends nothing to anyone (issue #37): the fake Bot API gets no
// sendMessage, the webhook receiver nothing, and no message, event or job is stored for the channel's chats.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Replay, ReplayItem } from '@parley/contracts';
import { eventually } from './support/events.ts';
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
