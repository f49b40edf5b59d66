// Long customer texts do not stall the server (issue #23, item 4): while the agent's reply job looks a giant word
// or a thousand words up in a knowledge base, /healthz keeps answering. Through the public API (its 10,000-character
// limit) and a Telegram update (no limit of its own: a 100 KB text).
//
// The bound, 350 ms, is on the server's own time: for each /healthz request, the shorter of its wall time and the
// CPU time the process spent while it waited. On the shared 2-core machine (load average 15-21) a one-line
// question's /healthz took 10-1,150 ms of wall time at 5-130 ms of CPU, so wall time alone cannot be held to
// 200 ms there; the stalls this guards against are CPU (Porter2 on a 10,000-letter word: about 650 ms, on 100 KB
// over a minute). Wall time has a generous bound of its own (5 s). It was 200 ms until the conversations trigger
// (migration 0027) made each stored message's insert dearer: PGlite runs in the server's process, and a Telegram
// update's whole handling (the message, the chat, the conversation, the job) fell within one /healthz wait of 201 ms
// in a CI run; 350 ms still fails on the stalls above.
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { eventually } from './support/events.ts';
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { ANSWER, messengerAccount } from './support/messenger-setup.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const FALLBACK = "I'm not sure I understood. Could you put it another way? You can also ask for a person.";
const BUSIEST_HEALTHZ_MS = 350;
const SLOWEST_HEALTHZ_MS = 5_000;
const TOKEN = '123456789:AAHlongtextlongtextlongtext_token';

/**
 * The n-th made-up word of `syllables` syllables, always the same, of consonant-vowel pairs from `consonants` (8):
 * words the dictionary does not know, and none within two edits of a word made of the other consonants.
 */
function madeUpWord(n: number, syllables: number, consonants: string): string {
  let word = '';
  for (let i = 0, rest = n; i < syllables; i++, rest = Math.floor(rest / 40)) word += `${consonants[rest % 8]}${'aeiou'[Math.floor(rest / 8) % 5]}`;
  return word;
}

const ENTRIES = [
  { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
  { question: 'What payment methods do you accept?', answer: 'We accept cards, PayPal and bank transfer.' },
  // A long answer gives the base a vocabulary of a thousand words that misspelled words are compared with.
  {
    question: 'What do the product codes mean?',
    answer: Array.from({ length: 1200 }, (_, i) => madeUpWord(i * 7 + 3, 3, 'klmnrtvz')).join(' '),
  },
];

/** The agent's reply stored in the chat (origin agent), once it is there. */
async function storedReply(t: TestApp, channelId: string, externalChatId: string): Promise<string | undefined> {
  const [row] = await queryRows<{ text: string }>(
    t.database.db,
    sql`select m.text from messages m join chats c on c.id = m.chat_id
        where c.channel_id = ${channelId} and c.external_chat_id = ${externalChatId} and m.origin = 'agent'`,
  );
  return row?.text;
}

interface Healthz {
  /** The longest a /healthz request waited on the server's own work: min(wall time, process CPU time) while it waited. */
  busiestMs: number;
  slowestMs: number;
  requests: number;
}

/** Asks /healthz one request after another until `work` settles: its value and how long /healthz waited. */
async function healthzDuring<T>(t: TestApp, work: () => Promise<T>): Promise<{ value: T; healthz: Healthz }> {
  let done = false;
  const running = work().finally(() => {
    done = true;
  });
  const healthz: Healthz = { busiestMs: 0, slowestMs: 0, requests: 0 };
  do {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const response = await fetch(`${t.url}/healthz`);
    const body = await response.text();
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    healthz.busiestMs = Math.max(healthz.busiestMs, Math.min(wallMs, (used.user + used.system) / 1000));
    healthz.slowestMs = Math.max(healthz.slowestMs, wallMs);
    healthz.requests += 1;
    assert.equal(response.status, 200, body);
  } while (!done);
  return { value: await running, healthz };
}

function assertResponsive(context: TestContext, { busiestMs, slowestMs, requests }: Healthz): void {
  const seen = `busiest ${Math.round(busiestMs)} ms, slowest ${Math.round(slowestMs)} ms of wall time, ${requests} requests`;
  context.diagnostic(`/healthz: ${seen}`);
  assert.ok(busiestMs < BUSIEST_HEALTHZ_MS, `/healthz waited on the server's work: ${seen}`);
  assert.ok(slowestMs < SLOWEST_HEALTHZ_MS, `/healthz was slow: ${seen}`);
}

describe('a long text through the public API, on a channel with a knowledge base', () => {
  let t: TestApp;
  let key: string;
  let channelId: string;
  before(async () => {
    t = await startTestApp();
    const user = await t.createConsoleUser();
    key = user.key;
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    assert.equal(base.status, 201, base.text);
    for (const entry of ENTRIES) {
      const res = await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: entry });
      assert.equal(res.status, 201, res.text);
    }
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Support', knowledgeBaseId: base.body.id },
    });
    assert.equal(channel.status, 201, channel.text);
    channelId = channel.body.id;
    // The base loaded, WordNet read (once per process) and the code warmed by a first question, as on a server
    // that has run a while: what is measured is the long text's own work.
    await send('warm-up', 'how long will the shipping take');
    assert.equal(await eventually(() => storedReply(t, channelId, 'warm-up'), 10_000), 'Shipping takes 3 to 5 business days.');
  });
  after(() => t.close());

  async function send(externalChatId: string, text: string): Promise<void> {
    const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: key },
      body: { channel: 'custom', channelId, externalChatId, role: 'user', text },
    });
    assert.equal(res.status, 201, res.text);
  }

  async function replyWhileHealthy(context: TestContext, externalChatId: string, text: string): Promise<void> {
    assert.ok(text.length <= 10_000, 'within the documented limit of a message text');
    const { value: reply, healthz } = await healthzDuring(t, async () => {
      await send(externalChatId, text);
      return eventually(() => storedReply(t, channelId, externalChatId), 30_000);
    });
    assertResponsive(context, healthz);
    assert.equal(reply, FALLBACK);
  }

  test("'y' × 10,000: one word of the whole message", async (context) => {
    await replyWhileHealthy(context, 'one-word', 'y'.repeat(10_000));
  });

  test('five words of 2,000 letters', async (context) => {
    await replyWhileHealthy(context, 'long-words', Array.from({ length: 5 }, (_, i) => 'y'.repeat(1_998 - i) + 'z'.repeat(1 + i)).join(' '));
  });

  test('1,100 words of 8 letters that neither the base nor the dictionary knows, each compared with its vocabulary', async (context) => {
    const text = Array.from({ length: 1_100 }, (_, i) => madeUpWord(i * 13 + 5, 4, 'psdfghjb')).join(' ');
    await replyWhileHealthy(context, 'many-words', text);
  });
});

describe('a 100 KB Telegram message of one giant word', () => {
  let t: TestApp;
  let telegram: FakeTelegram;
  let receiver: Receiver;
  let channelId: string;
  before(async () => {
    telegram = await startFakeTelegram();
    receiver = await startReceiver();
    telegram.addBot(TOKEN, { id: 123456789, username: 'parley_long_bot' });
    t = await startTestApp({
      webhookAllowPrivateNetworks: true,
      messengerApis: { telegram: telegram.url, meta: 'http://127.0.0.1:9', viber: 'http://127.0.0.1:9' },
    });
    const account = await messengerAccount(t, receiver);
    // No webhook of the channel: a 100 KB new_messages delivery is not what is measured.
    const res = await account.connect('telegram', { botToken: TOKEN }, { webhookUrl: null });
    assert.equal(res.status, 201, res.text);
    channelId = res.body.id;
    // The webhook route and the agent's path warmed by a first update, as on a server that has run a while.
    assert.equal((await postUpdate(7000, 'how long will the shipping take')).status, 200);
    assert.equal(await eventually(() => storedReply(t, channelId, '7000'), 10_000), ANSWER);
  });
  after(async () => {
    await t.close();
    await telegram.close();
    await receiver.close();
  });

  /** A private chat's text message as the Bot API posts it to the channel's webhook. */
  function postUpdate(chatId: number, text: string) {
    const update = {
      update_id: chatId,
      message: {
        message_id: chatId,
        from: { id: chatId, is_bot: false, first_name: 'Ada' },
        chat: { id: chatId, first_name: 'Ada', type: 'private' },
        date: Math.floor(Date.now() / 1000),
        text,
      },
    };
    return t.request('POST', `/channels/telegram/${channelId}/webhook`, {
      body: update,
      headers: { 'x-telegram-bot-api-secret-token': telegram.webhooks.get(TOKEN)?.secretToken ?? '' },
    });
  }

  test('the agent answers it with the fallback and /healthz keeps answering meanwhile', async (context) => {
    const text = `Hello ${'y'.repeat(100_000)}?`;
    const { value: reply, healthz } = await healthzDuring(t, async () => {
      const res = await postUpdate(7001, text);
      assert.equal(res.status, 200, res.text);
      return eventually(() => storedReply(t, channelId, '7001'), 30_000);
    });
    assertResponsive(context, healthz);
    assert.equal(reply, FALLBACK);
    const [stored] = await queryRows<{ length: number }>(
      t.database.db,
      sql`select length(m.text)::int as length from messages m join chats c on c.id = m.chat_id
          where c.channel_id = ${channelId} and c.external_chat_id = '7001' and m.role = 'user'`,
    );
    assert.equal(stored?.length, text.length, 'the message is stored whole');
  });
});
