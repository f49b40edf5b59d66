// Secrets never in logs or responses, and sealed at rest: a failed write logs no parameter values, request
// headers are redacted at every log level, a model server echoing the key gets it redacted everywhere, and the
// database holds channel secrets only encrypted (AES-256-GCM), sealing values an earlier version stored in clear.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { createSecretBox } from '../src/lib/secret-box.ts';
import { eventually } from './support/events.ts';
import { reply, startFakeLlm, type FakeLlm } from './support/fake-llm.ts';
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts';
import { SECRETS_KEY, startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
let fake: FakeLlm;
let telegram: FakeTelegram;
before(async () => {
  fake = await startFakeLlm();
  telegram = await startFakeTelegram();
  telegram.addBot(BOT_TOKEN, { id: 123456789, username: 'secrets_test_bot' });
  t = await startTestApp({
    webhookAllowPrivateNetworks: true,
    logLevel: 'trace',
    messengerApis: { telegram: telegram.url, meta: 'http://127.0.0.1:9', viber: 'http://127.0.0.1:9' },
  });
});
after(async () => {
  await t.close();
  await fake.close();
  await telegram.close();
});

const WEBHOOK_SECRET = 'whsec_c2VjcmV0LXZhbHVlLW5ldmVyLWluLWxvZ3M=';
const MODEL_KEY = 'sk-test-model-key-never-logged-0123456789';
const BOT_TOKEN = '123456789:AAEverySecretBotTokenNeverLogged_0123';

function logsMention(...secrets: string[]): string[] {
  return secrets.filter((secret) => t.logs.some((line) => line.includes(secret)));
}

test('a failed channel write is logged without the values it was given', async () => {
  const user = await t.createConsoleUser();
  await t.database.db.execute(sql`ALTER TABLE channels ADD CONSTRAINT secrets_test_explode CHECK (name <> 'explode')`);
  try {
    const custom = await t.console(user.token, 'POST', '/channel/custom/connect/', {
      body: {
        name: 'explode',
        webhookSecret: WEBHOOK_SECRET,
        agentEngine: { kind: 'openai-compatible', baseUrl: 'https://llm.example.com/v1', model: 'm', apiKey: MODEL_KEY },
      },
    });
    assert.equal(custom.status, 500, custom.text);
    const telegram = await t.console(user.token, 'POST', '/channel/telegram/connect/', {
      body: { name: 'explode', credentials: { botToken: BOT_TOKEN } },
    });
    assert.equal(telegram.status, 500, telegram.text);
  } finally {
    await t.database.db.execute(sql`ALTER TABLE channels DROP CONSTRAINT secrets_test_explode`);
  }
  const failures = t.logs.filter((line) => line.includes('secrets_test_explode'));
  assert.ok(failures.length >= 2, 'the failures were logged');
  assert.ok(failures.every((line) => line.includes('Failed query: insert into \\"channels\\"')), failures[0]);
  assert.deepEqual(logsMention(WEBHOOK_SECRET, MODEL_KEY, BOT_TOKEN, 'sk-test-model'), []);
  // No parameter values at all: not even the sealed ones, nor PostgreSQL's "Failing row contains (…)".
  assert.deepEqual(logsMention('params:', 'enc:v1:', 'Failing row'), []);
  assert.ok(failures.every((line) => line.includes('violates check constraint')), 'the server message is kept');
});

test('request headers are redacted at trace level too (multipart parser options)', async () => {
  const user = await t.createConsoleUser();
  const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'Trace' } });
  const data = new FormData();
  for (const [name, value] of Object.entries({ channel: 'custom', channelId: channel.body.id, externalChatId: 'tr', role: 'user', text: 'hi' })) {
    data.append(name, value);
  }
  const sent = await fetch(`${t.url}/api/v1/chats/chat/send-message-universal`, { method: 'POST', headers: { authorization: user.key }, body: data });
  assert.equal(sent.status, 201);
  assert.ok(t.logs.some((line) => line.includes('busboyOptions')), 'the parser logged its options at trace level');
  assert.deepEqual(logsMention(user.key, user.token), []);
});

test('a model server echoing the key: redacted in the 502, the failure list and the logs', async () => {
  const user = await t.createConsoleUser();
  const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
    body: { name: 'Echo', agentEngine: { kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'm', apiKey: MODEL_KEY } },
  });
  assert.equal(channel.status, 201, channel.text);
  const echo = { error: { message: `Incorrect API key provided: Bearer ${MODEL_KEY}. You can find your key at …` } };
  fake.script('/v1/chat/completions', reply.status(401, echo), reply.status(401, echo));

  const tried = await t.console<{ message: string }>(user.token, 'POST', `/chat/test/${channel.body.id}/`, { body: { text: 'hi' } });
  assert.equal(tried.status, 502, tried.text);
  assert.match(tried.body.message, /HTTP 401: .*Incorrect API key provided: Bearer \[redacted\]/);
  assert.ok(!tried.text.includes(MODEL_KEY));

  const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
    headers: { authorization: user.key },
    body: { channel: 'custom', channelId: channel.body.id, externalChatId: 'echo', role: 'user', text: 'hi' },
  });
  assert.equal(sent.status, 201);
  const listed = await eventually(async () => {
    const res = await t.console<{ failures: Array<{ error: string }> }>(user.token, 'GET', '/agent/failures/');
    return res.body.failures.length > 0 && res;
  }, 10_000);
  assert.match(listed.body.failures[0]?.error ?? '', /\[redacted\]/);
  assert.ok(!listed.text.includes(MODEL_KEY));
  assert.equal(fake.requests[0]?.headers.authorization, `Bearer ${MODEL_KEY}`, 'the key itself was sent to the model server');
  assert.deepEqual(logsMention(MODEL_KEY, 'sk-test-model'), []);
});

test('channel secrets are stored encrypted; values stored in clear are sealed at start', async () => {
  const user = await t.createConsoleUser();
  const created = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
    body: {
      name: 'Sealed',
      webhookSecret: WEBHOOK_SECRET,
      agentEngine: { kind: 'openai-compatible', baseUrl: 'https://llm.example.com/v1', model: 'm', apiKey: MODEL_KEY },
    },
  });
  assert.equal(created.status, 201, created.text);
  const tg = await t.console<{ id: string }>(user.token, 'POST', '/channel/telegram/connect/', {
    body: { name: 'Bot', credentials: { botToken: BOT_TOKEN } },
  });
  assert.equal(tg.status, 201, tg.text);

  type Row = { webhook_secret: string | null; agent_api_key: string | null; credentials: Record<string, string> | null };
  const rowOf = async (id: string) =>
    (await queryRows<Row>(t.database.db, sql`select webhook_secret, agent_api_key, credentials from channels where id = ${id}`))[0];
  const box = createSecretBox(SECRETS_KEY);
  const custom = await rowOf(created.body.id);
  assert.match(custom?.webhook_secret ?? '', /^enc:v1:/);
  assert.match(custom?.agent_api_key ?? '', /^enc:v1:/);
  assert.equal(box.open(custom?.webhook_secret ?? ''), WEBHOOK_SECRET);
  assert.equal(box.open(custom?.agent_api_key ?? ''), MODEL_KEY);
  const bot = await rowOf(tg.body.id);
  assert.match(bot?.credentials?.botToken ?? '', /^enc:v1:/);
  const dump = JSON.stringify(await queryRows(t.database.db, sql`select * from channels`));
  assert.deepEqual([WEBHOOK_SECRET, MODEL_KEY, BOT_TOKEN].filter((secret) => dump.includes(secret)), []);
  // Another key cannot open them.
  assert.throws(() => createSecretBox('another-key-0123456789abcdef0123456789').open(custom?.webhook_secret ?? ''));

  // As an earlier version stored it: in clear. The next start seals it; reads keep working.
  await t.database.db.execute(
    sql`update channels set webhook_secret = ${WEBHOOK_SECRET}, credentials = ${JSON.stringify({ botToken: BOT_TOKEN })}::jsonb where id in (${created.body.id}, ${tg.body.id})`,
  );
  const next = await startTestApp({ database: t.database, workers: false });
  try {
    assert.match((await rowOf(created.body.id))?.webhook_secret ?? '', /^enc:v1:/);
    assert.match((await rowOf(tg.body.id))?.credentials?.botToken ?? '', /^enc:v1:/);
    assert.equal(box.open((await rowOf(tg.body.id))?.credentials?.botToken ?? ''), BOT_TOKEN);
    const seen = await next.console<{ webhookSecretSet: boolean }>(user.token, 'GET', `/channel/custom/${created.body.id}/`);
    assert.equal(seen.status, 200, seen.text);
    assert.equal(seen.body.webhookSecretSet, true);
  } finally {
    await next.close();
  }
});
