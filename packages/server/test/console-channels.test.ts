// Console channels: every kind, settings, engine, working hours, webhook URL rules, secrets never shown,
// and isolation between accounts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { newId } from '../src/lib/ids.ts';
import { createSecretBox } from '../src/lib/secret-box.ts';
import { startFakeTelegram, type FakeTelegram } from './support/fake-telegram.ts';
import { startFakeViber, type FakeViber } from './support/fake-viber.ts';
import { SECRETS_KEY, startTestApp, type TestApp } from './support/harness.ts';

type Channel = Record<string, unknown> & { id: string; settings: Record<string, unknown> };

let t: TestApp;
let token: string;
let accountId: string;
// Connecting Telegram and Viber registers the webhook: their APIs are local fakes.
let telegram: FakeTelegram;
let viber: FakeViber;
before(async () => {
  telegram = await startFakeTelegram();
  viber = await startFakeViber();
  telegram.addBot('123456789:AAHsecretsecretsecretsecret_secret', { id: 123456789, username: 'bot' });
  viber.addBot('viber-secret-auth-token');
  t = await startTestApp({ messengerApis: { telegram: telegram.url, meta: 'http://127.0.0.1:9', viber: viber.url } });
  ({ token, accountId } = await t.createConsoleUser());
});
after(async () => {
  await t.close();
  await Promise.all([telegram.close(), viber.close()]);
});

const connect = (kind: string, body: unknown, as = token) => t.console<Channel>(as, 'POST', `/channel/${kind}/connect/`, { body });
const put = (kind: string, id: string, body: unknown, lang?: string) =>
  t.console<Channel>(token, 'PUT', `/channel/${kind}/${encodeURIComponent(id)}/`, { body, lang });
const get = (kind: string, id: string, as = token) => t.console<Channel>(as, 'GET', `/channel/${kind}/${encodeURIComponent(id)}/`);

const CREDENTIALS: Record<string, Record<string, string>> = {
  telegram: { botToken: '123456789:AAHsecretsecretsecretsecret_secret' },
  whatsapp: { phoneNumberId: '1098', accessToken: 'wa-secret-access-token', appSecret: 'wa-app-secret', verifyToken: 'wa-verify-token' },
  facebook: { pageId: '555', pageAccessToken: 'fb-secret-page-token', appSecret: 'fb-app-secret', verifyToken: 'fb-verify-token' },
  instagram: { accountId: '777', accessToken: 'ig-secret-access-token', appSecret: 'ig-app-secret', verifyToken: 'ig-verify-token' },
  viber: { authToken: 'viber-secret-auth-token' },
};

describe('connect', () => {
  test('an API channel: 201, id cc: + random token, defaults', async () => {
    const res = await connect('custom', { name: 'Support API' });
    assert.equal(res.status, 201);
    const channel = res.body;
    assert.match(channel.id, /^cc:[A-Za-z0-9_-]{24}$/);
    assert.deepEqual({ ...channel, id: undefined, createdAt: undefined, updatedAt: undefined }, {
      id: undefined,
      type: 'custom',
      name: 'Support API',
      webhookUrl: null,
      webhookSecretSet: false,
      disableAgentResponses: false,
      settings: { behavior: '', role: '', task: '', greeting: '', isActive: true, aiLang: 'en' },
      knowledgeBaseId: null,
      agentEngine: { kind: 'knowledge-base' },
      workingHours: null,
      autoReply: null,
      handoffMessage: null,
      handoffAfterFallbacks: 2,
      clarifyChoices: 3,
      clarifyPrompt: null,
      actionIds: [],
      credentialsSet: false,
      inboundUrl: null,
      verifyToken: null,
      connectorError: null,
      createdAt: undefined,
      updatedAt: undefined,
    });
    assert.match(String(channel.createdAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.notEqual((await connect('custom', { name: 'Other' })).body.id, channel.id);
  });

  test('every kind; messenger credentials are required, stored and never shown', async () => {
    assert.equal((await connect('widget', { name: 'Site widget' })).status, 201);
    for (const [kind, credentials] of Object.entries(CREDENTIALS)) {
      const missing = await connect(kind, { name: kind });
      assert.equal(missing.status, 400, kind);
      assert.deepEqual(missing.body, { message: ['credentials is required'], statusCode: 400 });
      const res = await connect(kind, { name: kind, credentials });
      assert.equal(res.status, 201, `${kind}: ${res.text}`);
      assert.equal(res.body.type, kind);
      assert.equal(res.body.credentialsSet, true);
      assert.match(res.body.id, /^[0-9a-f-]{36}$/);
      // Only the tokens and app secrets are secret; short numeric ids (pageId '555') could match a random UUID. The
      // Meta verify token is shown back on purpose (the owner pastes it into Meta's dashboard).
      const secrets = Object.entries(credentials)
        .filter(([name]) => /token|secret/i.test(name) && name !== 'verifyToken')
        .map(([, v]) => v);
      assert.equal(res.body.verifyToken, credentials.verifyToken ?? null, kind);
      assert.ok(secrets.length > 0, kind);
      const shown = (await get(kind, res.body.id)).text;
      for (const secret of secrets) {
        assert.ok(!res.text.includes(secret), `${kind} echoed a secret`);
        assert.ok(!shown.includes(secret), `${kind} shows a secret`);
      }
    }
    assert.equal((await connect('custom', { name: 'x', credentials: { botToken: 'x' } })).status, 400);
    const badToken = await connect('telegram', { name: 't', credentials: { botToken: 'nope' } });
    assert.equal(badToken.status, 400);
  });

  test('an unknown kind: 400 naming the kinds', async () => {
    const res = await connect('fax', { name: 'x' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      message: 'Unknown channel kind "fax"; use one of: widget, custom, telegram, whatsapp, facebook, instagram, viber',
      statusCode: 400,
    });
    assert.equal((await get('fax', 'x')).status, 400);
  });

  test('everything at once, with the secrets write-only', async () => {
    const res = await connect('custom', {
      name: 'Full',
      webhookUrl: 'https://93.184.215.14/hooks/parley',
      webhookSecret: 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LTEyMzQ=',
      disableAgentResponses: true,
      settings: { role: 'Support agent', task: 'Book a demo', aiLang: 'ru' },
      agentEngine: { kind: 'openai-compatible', baseUrl: 'https://llm.example.com/v1', model: 'llama3', apiKey: 'sk-very-secret' },
      workingHours: { timeZone: 'Europe/Berlin', intervals: [{ day: 'mon', from: '09:00', to: '18:00' }] },
      autoReply: 'We are closed now',
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.webhookUrl, 'https://93.184.215.14/hooks/parley');
    assert.equal(res.body.webhookSecretSet, true);
    assert.equal(res.body.disableAgentResponses, true);
    assert.deepEqual(res.body.settings, { behavior: '', role: 'Support agent', task: 'Book a demo', greeting: '', isActive: true, aiLang: 'ru' });
    assert.deepEqual(res.body.agentEngine, { kind: 'openai-compatible', baseUrl: 'https://llm.example.com/v1', model: 'llama3', timeoutSeconds: 30, transcriptionModel: null, apiKeySet: true });
    assert.deepEqual(res.body.workingHours, { timeZone: 'Europe/Berlin', intervals: [{ day: 'mon', from: '09:00', to: '18:00' }] });
    assert.equal(res.body.autoReply, 'We are closed now');
    assert.ok(!res.text.includes('sk-very-secret') && !res.text.includes('whsec_'));
  });
});

describe('read, change, delete', () => {
  test('GET one, GET all in creation order; another kind in the path is 404', async () => {
    const user = await t.createConsoleUser();
    const a = (await connect('custom', { name: 'A' }, user.token)).body;
    const b = (await connect('widget', { name: 'B' }, user.token)).body;
    assert.deepEqual((await get('custom', a.id, user.token)).body, a);
    const all = await t.console<{ channels: Channel[] }>(user.token, 'GET', '/channels/all/');
    assert.deepEqual(all.body.channels.map((c) => c.id), [a.id, b.id]);
    assert.equal((await t.console(user.token, 'GET', '/channels/all')).status, 200, 'without the trailing slash');
    assert.deepEqual((await get('widget', a.id, user.token)).body, { message: 'Channel not found', statusCode: 404 });
  });

  test('PUT is partial: settings merge, the engine key is kept until replaced or dropped', async () => {
    const channel = (await connect('custom', { name: 'P', settings: { role: 'Seller', greeting: 'Hi!' } })).body;
    let res = await put('custom', channel.id, { settings: { task: 'Sell' }, disableAgentResponses: true });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.settings, { behavior: '', role: 'Seller', task: 'Sell', greeting: 'Hi!', isActive: true, aiLang: 'en' });
    assert.equal(res.body.name, 'P');
    assert.ok(String(res.body.updatedAt) >= String(channel.updatedAt));

    res = await put('custom', channel.id, { agentEngine: { kind: 'openai-compatible', baseUrl: 'https://api.example.com/v1', model: 'm1', apiKey: 'sk-1' } });
    assert.deepEqual(res.body.agentEngine, { kind: 'openai-compatible', baseUrl: 'https://api.example.com/v1', model: 'm1', timeoutSeconds: 30, transcriptionModel: null, apiKeySet: true });
    res = await put('custom', channel.id, { agentEngine: { kind: 'openai-compatible', baseUrl: 'https://api.example.com/v1', model: 'm2' } });
    assert.deepEqual(res.body.agentEngine, { kind: 'openai-compatible', baseUrl: 'https://api.example.com/v1', model: 'm2', timeoutSeconds: 30, transcriptionModel: null, apiKeySet: true });
    const stored = await queryRows<{ agent_api_key: string }>(t.database.db, sql`select agent_api_key from channels where id = ${channel.id}`);
    assert.equal(createSecretBox(SECRETS_KEY).open(stored[0]?.agent_api_key ?? ''), 'sk-1'); // sealed at rest
    res = await put('custom', channel.id, { agentEngine: { kind: 'knowledge-base' } });
    assert.deepEqual(res.body.agentEngine, { kind: 'knowledge-base' });

    res = await put('custom', channel.id, { webhookSecret: 'a-signing-secret-of-some-length' });
    assert.equal(res.body.webhookSecretSet, true);
    res = await put('custom', channel.id, { webhookSecret: null, autoReply: 'Back soon', workingHours: null });
    assert.equal(res.body.webhookSecretSet, false);
    assert.equal(res.body.autoReply, 'Back soon');
  });

  test('DELETE: 200 { success: true }, then 404', async () => {
    const channel = (await connect('widget', { name: 'D' })).body;
    const res = await t.console(token, 'DELETE', `/channel/widget/${channel.id}/`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    assert.equal((await get('widget', channel.id)).status, 404);
    assert.equal((await t.console(token, 'DELETE', `/channel/widget/${channel.id}/`)).status, 404);
  });

  test('knowledgeBaseId: own base attaches, unknown or foreign base is 400', async () => {
    const channel = (await connect('custom', { name: 'K' })).body;
    const own = newId();
    const foreignOwner = await t.createAccount();
    const foreign = newId();
    await t.database.db.execute(sql`insert into knowledge_bases (id, account_id, name) values (${own}, ${accountId}, 'Own'), (${foreign}, ${foreignOwner.accountId}, 'Foreign')`);
    assert.equal((await put('custom', channel.id, { knowledgeBaseId: own })).body.knowledgeBaseId, own);
    for (const id of [foreign, newId()]) {
      const res = await put('custom', channel.id, { knowledgeBaseId: id });
      assert.deepEqual(res.body, { message: 'knowledgeBaseId: knowledge base not found', statusCode: 400 });
    }
    assert.equal((await put('custom', channel.id, { knowledgeBaseId: null })).body.knowledgeBaseId, null);
  });
});

describe('bad input: 400 saying what is wrong, nothing half-saved', () => {
  test('schema problems', async () => {
    const channel = (await connect('custom', { name: 'B' })).body;
    const cases: [unknown, string[]][] = [
      [{ color: 'red' }, ['property color should not exist']],
      [{ name: '' }, ['Name: cannot be empty']],
      [{ name: 'x'.repeat(101) }, ['Name: up to 100 characters']],
      [{ settings: { mood: 'happy' } }, ['property settings.mood should not exist']],
      [{ settings: { aiLang: 'english please' } }, ['Language of the agent: a language code such as en or pt-BR']],
      [{ autoReply: 'x'.repeat(2001) }, ['Auto-reply: up to 2000 characters']],
      [{ workingHours: { timeZone: 'UTC', intervals: [{ day: 'someday', from: '09:00', to: '10:00' }] } }, []],
      [{ disableAgentResponses: 'yes' }, ['Disable agent responses: must be true or false']],
    ];
    for (const [body, message] of cases) {
      const res = await put('custom', channel.id, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      if (message.length > 0) assert.deepEqual((res.body as unknown as { message: string[] }).message, message, JSON.stringify(body));
    }
    assert.deepEqual((await get('custom', channel.id)).body, channel);
  });

  test('time zone and intervals', async () => {
    const channel = (await connect('custom', { name: 'H' })).body;
    let res = await put('custom', channel.id, { workingHours: { timeZone: 'Mars/Olympus', intervals: [] } });
    assert.deepEqual(res.body, { message: 'workingHours.timeZone: unknown time zone "Mars/Olympus"', statusCode: 400 });
    res = await put('custom', channel.id, {
      workingHours: { timeZone: 'UTC', intervals: [{ day: 'tue', from: '09:00', to: '17:00' }, { day: 'wed', from: '18:00', to: '09:00' }] },
    });
    assert.deepEqual(res.body, { message: 'workingHours.intervals[1]: "from" must be before "to"', statusCode: 400 });
    res = await put('custom', channel.id, { workingHours: { timeZone: 'UTC', intervals: [{ day: 'sun', from: '22:00', to: '24:00' }] } });
    assert.equal(res.status, 200);
    res = await put('custom', channel.id, { workingHours: { timeZone: 'UTC', intervals: [{ day: 'sun', from: '25:00', to: '26:00' }] } });
    assert.equal(res.status, 400);
  });

  test('webhook URLs: http(s) only, never private, loopback, link-local or unresolvable', async () => {
    const channel = (await connect('custom', { name: 'W', webhookUrl: 'https://93.184.215.14/ok' })).body;
    for (const url of ['ftp://example.com/x', 'not a url', 'https://user:pass@93.184.215.14/', 'javascript:alert(1)']) {
      const res = await put('custom', channel.id, { webhookUrl: url });
      assert.deepEqual(res.body, { message: 'webhookUrl must be an http or https URL', statusCode: 400 }, url);
    }
    const privateUrls: [string, string][] = [
      ['http://127.0.0.1:8080/hook', '127.0.0.1'],
      ['http://localhost/hook', '127.0.0.1'],
      ['http://10.1.2.3/hook', '10.1.2.3'],
      ['http://172.16.0.1/hook', '172.16.0.1'],
      ['http://192.168.1.10/hook', '192.168.1.10'],
      ['http://169.254.169.254/latest/meta-data', '169.254.169.254'],
      ['http://100.100.100.200/', '100.100.100.200'],
      ['http://0.0.0.0/', '0.0.0.0'],
      ['http://2130706433/', '127.0.0.1'],
      ['http://[::1]/hook', '::1'],
      ['http://[fd00:ec2::254]/', 'fd00:ec2::254'],
      ['http://[fe80::1]/', 'fe80::1'],
      ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ];
    for (const [url, address] of privateUrls) {
      const res = await put('custom', channel.id, { webhookUrl: url });
      assert.equal(res.status, 400, url);
      assert.deepEqual(res.body, {
        message: `webhookUrl points to a private, loopback or link-local address (${address}); use a public URL`,
        statusCode: 400,
      }, url);
    }
    const unresolvable = await put('custom', channel.id, { webhookUrl: 'https://no-such-host.invalid/hook' });
    assert.deepEqual(unresolvable.body, { message: 'webhookUrl host "no-such-host.invalid" cannot be resolved', statusCode: 400 });
    const ru = await put('custom', channel.id, { webhookUrl: 'http://10.0.0.1/' }, 'ru');
    assert.equal((ru.body as unknown as { message: string }).message, 'webhookUrl указывает на частный, локальный или link-local адрес (10.0.0.1); укажите публичный URL');
    assert.equal((await get('custom', channel.id)).body.webhookUrl, 'https://93.184.215.14/ok');
    assert.equal((await connect('custom', { name: 'X', webhookUrl: 'http://127.0.0.1/' })).status, 400);
  });
});

describe('tenant isolation', () => {
  test("another account gets 404 on every channel route and cannot change anything", async () => {
    const owner = await t.createConsoleUser();
    const intruder = await t.createConsoleUser();
    const channel = (await connect('custom', { name: 'Private', webhookUrl: 'https://93.184.215.14/x' }, owner.token)).body;
    const path = `/channel/custom/${channel.id}/`;
    const notFound = { message: 'Channel not found', statusCode: 404 };
    assert.deepEqual((await t.console(intruder.token, 'GET', path)).body, notFound);
    assert.deepEqual((await t.console(intruder.token, 'PUT', path, { body: { name: 'Mine' } })).body, notFound);
    assert.deepEqual((await t.console(intruder.token, 'DELETE', path)).body, notFound);
    assert.deepEqual((await t.console(intruder.token, 'POST', `/webhooks/custom/${channel.id}/test`)).body, notFound);
    assert.deepEqual((await t.console<{ channels: unknown[] }>(intruder.token, 'GET', '/channels/all/')).body, { channels: [] });
    assert.deepEqual((await t.console(owner.token, 'GET', path)).body, channel);
    assert.deepEqual((await t.console(intruder.token, 'GET', path, { lang: 'ru' })).body, { message: 'Канал не найден', statusCode: 404 });
  });
});
