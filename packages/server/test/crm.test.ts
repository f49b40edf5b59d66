// CRM connections end to end against fake HubSpot and Pipedrive APIs on local ports: connect (token checked, a bad
// one stored nowhere, the token sealed and never shown), the sync when a chat's task becomes done (contact, deal,
// transcript note), a second completion updating, 429 Retry-After, failures listed, channel scoping, isolation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { eventually } from './support/events.ts';
import { startFakeHubspot, type FakeHubspot } from './support/fake-hubspot.ts';
import { reply, startFakeLlm } from './support/fake-llm.ts';
import { startFakePipedrive, type FakePipedrive } from './support/fake-pipedrive.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

const HUBSPOT_TOKEN = 'pat-eu1-11111111-2222-3333-4444-555555555555';
const PIPEDRIVE_TOKEN = '659c9fddb16335e48cc67114694b52074e812e03';

interface Sync {
  chatId: string;
  dialogName: string;
  status: 'pending' | 'synced' | 'failed';
  contactId: string | null;
  dealId: string | null;
  attempts: number;
  error: string | null;
  requestedAt: string;
  syncedAt: string | null;
  updatedAt: string;
}
interface Connection {
  id: string;
  kind: string;
  name: string;
  companyDomain: string | null;
  channelIds: string[] | null;
  tokenSet: boolean;
  createdAt: string;
  updatedAt: string;
  lastSync: Sync | null;
  failedCount: number;
  recentFailures: Sync[];
}

let t: TestApp;
let hubspot: FakeHubspot;
let pipedrive: FakePipedrive;

before(async () => {
  [hubspot, pipedrive] = await Promise.all([startFakeHubspot(), startFakePipedrive()]);
  hubspot.addToken(HUBSPOT_TOKEN, 4242);
  pipedrive.addToken(PIPEDRIVE_TOKEN, { name: 'Acme Ltd', domain: 'acme' });
  // Private networks allowed: the agent's model server of the trigger test is a local fake.
  t = await startTestApp({ webhookAllowPrivateNetworks: true, crmApis: { hubspot: hubspot.url, pipedrive: pipedrive.url } });
});
after(async () => {
  await t.close();
  await Promise.all([hubspot.close(), pipedrive.close()]);
});

/** A console user with API channels (agent off: the chats are only what the test sends). */
async function account(channels = 1) {
  const user = await t.createConsoleUser();
  const channelIds: string[] = [];
  for (let i = 0; i < channels; i++) {
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: `Shop ${i + 1}`, settings: { isActive: false } },
    });
    assert.equal(channel.status, 201, channel.text);
    channelIds.push(channel.body.id);
  }
  const connect = (kind: string, body: Record<string, unknown>) => t.console<Connection>(user.token, 'POST', `/crm/${kind}/connect/`, { body });
  const list = async () => {
    const res = await t.console<{ connections: Connection[] }>(user.token, 'GET', '/crm/all/');
    assert.equal(res.status, 200, res.text);
    return res.body.connections;
  };
  /** A chat with a customer message and a team reply recorded through the API; its id. */
  const chat = async (externalChatId: string, channelId = channelIds[0] as string) => {
    for (const [role, text] of [
      ['user', `Hello, I want a <b>quote</b> (${externalChatId})`],
      ['assistant', 'Sure, here it is & more'],
    ]) {
      const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId, externalChatId, role, text, senderName: 'Ada Lovelace' },
      });
      assert.equal(sent.status, 201, sent.text);
    }
    const found = await t.api<{ chats: { id: string; chatId: string; uniqueId: string }[] }>(user.key, '/chats/chat', { channelId });
    const row = found.body.chats.find((c) => c.chatId === externalChatId);
    assert.ok(row);
    return row;
  };
  const setStatus = async (chatId: string, done: boolean) => {
    const res = await t.api(user.key, `/chats/chat/${done ? 'done' : 'undone'}`, { id: chatId });
    assert.equal(res.status, 202, res.text);
  };
  /** The sync of a chat to a connection once it is no longer pending. */
  const settled = (connectionId: string, chatId: string, after = '') =>
    eventually(async () => {
      const [link] = await queryRows<{ status: string; updated_at: string }>(
        t.database.db,
        sql`select status, updated_at::text from crm_links where connection_id = ${connectionId} and chat_id = ${chatId}`,
      );
      return link && link.status !== 'pending' && link.updated_at > after ? link : undefined;
    }, 15_000);
  return { user, channelIds, connect, list, chat, setStatus, settled };
}

const storedConnections = async (accountId: string) =>
  queryRows<{ token: string; kind: string }>(t.database.db, sql`select token, kind from crm_connections where account_id = ${accountId}`);

describe('connect', () => {
  test('HubSpot: a bad token is a 400 with HubSpot\'s reason and nothing is stored', async () => {
    const a = await account();
    const res = await a.connect('hubspot', { token: 'pat-eu1-wrong' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      message:
        'The CRM refused: Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
      statusCode: 400,
    });
    assert.deepEqual(await a.list(), []);
    assert.deepEqual(await storedConnections(a.user.accountId), []);
  });

  test('HubSpot: 201 with the portal, the chat-key property created, the token sealed and never shown', async () => {
    const a = await account();
    const res = await a.connect('hubspot', { token: HUBSPOT_TOKEN });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.kind, 'hubspot');
    assert.equal(res.body.name, 'HubSpot portal 4242');
    assert.equal(res.body.companyDomain, null);
    assert.equal(res.body.channelIds, null);
    assert.equal(res.body.tokenSet, true);
    assert.equal(res.body.lastSync, null);
    assert.equal(res.body.failedCount, 0);
    assert.deepEqual(res.body.recentFailures, []);
    assert.ok(!res.text.includes(HUBSPOT_TOKEN));
    assert.ok(hubspot.properties.has('parley_chat_key'));
    const [stored] = await storedConnections(a.user.accountId);
    assert.match(stored?.token ?? '', /^enc:v1:/);
    const listed = await a.list();
    assert.deepEqual(listed, [res.body]);
    assert.ok(!JSON.stringify(listed).includes(HUBSPOT_TOKEN));
  });

  test('Pipedrive: a bad token is a 400 with Pipedrive\'s reason; a good one keeps the company and its person field', async () => {
    const a = await account();
    const bad = await a.connect('pipedrive', { token: 'nope', companyDomain: 'acme' });
    assert.deepEqual([bad.status, bad.body], [400, { message: 'The CRM refused: unauthorized access', statusCode: 400 }]);
    assert.deepEqual(await storedConnections(a.user.accountId), []);
    const res = await a.connect('pipedrive', { token: PIPEDRIVE_TOKEN, companyDomain: 'Acme' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual([res.body.kind, res.body.name, res.body.companyDomain], ['pipedrive', 'Acme Ltd', 'acme']);
    assert.ok([...pipedrive.personFields.values()].includes('Parley chat key'));
    assert.equal(pipedrive.calls('GET', '/api/v1/users/me').at(-1)?.headers['x-api-token'], PIPEDRIVE_TOKEN);
    assert.ok(!res.text.includes(PIPEDRIVE_TOKEN));
  });

  test('bad bodies and kinds are 400s', async () => {
    const a = await account();
    const cases: [string, Record<string, unknown>, string | RegExp][] = [
      ['salesforce', { token: 'x' }, 'Unknown CRM kind "salesforce"; use one of: hubspot, pipedrive'],
      ['pipedrive', { token: PIPEDRIVE_TOKEN }, /companyDomain/],
      ['pipedrive', { token: PIPEDRIVE_TOKEN, companyDomain: 'evil.example.com/x' }, /Company domain: letters, digits and - only, as in <name>\.pipedrive\.com/],
      ['hubspot', { token: HUBSPOT_TOKEN, extra: 1 }, /extra/],
      ['hubspot', { token: '' }, /Token: cannot be empty/],
      ['hubspot', { token: HUBSPOT_TOKEN, channelIds: ['cc:not-a-channel'] }, 'channelIds: channel not found: cc:not-a-channel'],
    ];
    for (const [kind, body, message] of cases) {
      const res = await a.connect(kind, body);
      assert.equal(res.status, 400, `${kind} ${JSON.stringify(body)}: ${res.text}`);
      const text = JSON.stringify((res.body as unknown as { message: unknown }).message);
      if (typeof message === 'string') assert.equal((res.body as unknown as { message: string }).message, message);
      else assert.match(text, message);
    }
    assert.deepEqual(await storedConnections(a.user.accountId), []);
    const translated = await t.console(a.user.token, 'POST', '/crm/zoho/connect/', { body: { token: 'x' }, lang: 'ru' });
    assert.deepEqual(translated.body, { message: 'Неизвестный тип CRM «zoho»; допустимые: hubspot, pipedrive', statusCode: 400 });
    assert.equal((await t.console(undefined, 'GET', '/crm/all/')).status, 401);
    assert.equal((await t.console(undefined, 'POST', '/crm/hubspot/connect/', { body: { token: HUBSPOT_TOKEN } })).status, 401);
  });

  test('trailing slashes are optional', async () => {
    const a = await account();
    assert.equal((await t.console(a.user.token, 'GET', '/crm/all')).status, 200);
    assert.equal((await t.console(a.user.token, 'POST', '/crm/hubspot/connect', { body: { token: HUBSPOT_TOKEN } })).status, 201);
  });
});

describe('HubSpot sync', () => {
  test('done through the public API: contact, deal and transcript note; a second completion updates, no duplicates', async () => {
    const a = await account();
    const connection = (await a.connect('hubspot', { token: HUBSPOT_TOKEN })).body;
    const chat = await a.chat('hs-1');
    const contactsBefore = hubspot.contacts.size;
    const dealsBefore = hubspot.deals.size;
    await a.setStatus(chat.id, true);
    await a.settled(connection.id, chat.id);

    const [link] = await queryRows<{ contact_id: string; deal_id: string; status: string }>(
      t.database.db,
      sql`select contact_id, deal_id, status from crm_links where chat_id = ${chat.id}`,
    );
    assert.equal(link?.status, 'synced');
    const contact = hubspot.contacts.get(link?.contact_id ?? '');
    assert.deepEqual(contact?.properties, { firstname: 'Ada Lovelace', parley_chat_key: chat.uniqueId });
    const deal = hubspot.deals.get(link?.deal_id ?? '');
    assert.deepEqual(deal?.properties, { dealname: 'Ada Lovelace (Shop 1)', pipeline: 'default', dealstage: 'appointmentscheduled' });
    assert.deepEqual(deal?.associations, [{ toId: contact?.id, typeId: 3 }]);
    const notes = [...hubspot.notes.values()].filter((note) => note.associations.some((a2) => a2.toId === deal?.id));
    assert.equal(notes.length, 1);
    assert.deepEqual(notes[0]?.associations, [
      { toId: contact?.id, typeId: 202 },
      { toId: deal?.id, typeId: 214 },
    ]);
    const body = notes[0]?.properties.hs_note_body ?? '';
    assert.match(body, /Hello, I want a &lt;b&gt;quote&lt;\/b&gt; \(hs-1\)/);
    assert.match(body, /Sure, here it is &amp; more/);
    assert.match(body, /<strong>Ada Lovelace<\/strong>/);
    assert.match(notes[0]?.properties.hs_timestamp ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.equal(hubspot.calls('POST', '/crm/v3/objects/contacts/search').at(-1)?.headers.authorization, `Bearer ${HUBSPOT_TOKEN}`);

    const view = (await a.list())[0];
    assert.equal(view?.lastSync?.status, 'synced');
    assert.equal(view?.lastSync?.chatId, chat.id);
    assert.equal(view?.lastSync?.contactId, contact?.id);
    assert.equal(view?.lastSync?.dealId, deal?.id);
    assert.equal(view?.lastSync?.dialogName, 'Ada Lovelace');

    // Undone, then done again: the same contact and deal (the deal updated), a second note.
    const syncedAt = (await a.settled(connection.id, chat.id)).updated_at;
    await a.setStatus(chat.id, false);
    await eventually(async () => !(await t.api<{ chats: { id: string; isTriggered: boolean }[] }>(a.user.key, '/chats/chat')).body.chats.find((c) => c.id === chat.id)?.isTriggered);
    const patchesBefore = hubspot.calls('PATCH', `/crm/v3/objects/deals/${deal?.id}`).length;
    await a.setStatus(chat.id, true);
    await a.settled(connection.id, chat.id, syncedAt);
    assert.equal(hubspot.contacts.size, contactsBefore + 1);
    assert.equal(hubspot.deals.size, dealsBefore + 1);
    assert.equal(hubspot.calls('PATCH', `/crm/v3/objects/deals/${deal?.id}`).length, patchesBefore + 1);
    assert.equal([...hubspot.notes.values()].filter((note) => note.associations.some((a2) => a2.toId === deal?.id)).length, 2);
  });

  test('a chat with a known e-mail goes to the contact having it', async () => {
    const a = await account();
    const connection = (await a.connect('hubspot', { token: HUBSPOT_TOKEN })).body;
    const chat = await a.chat('hs-mail');
    await t.database.db.execute(sql`update chats set email = 'grace@example.com' where id = ${chat.id}`);
    hubspot.contacts.set('77', { id: '77', properties: { email: 'grace@example.com', firstname: 'Grace' }, associations: [] });
    const contactsBefore = hubspot.contacts.size;
    await a.setStatus(chat.id, true);
    await a.settled(connection.id, chat.id);
    assert.equal(hubspot.contacts.size, contactsBefore);
    const view = (await a.list())[0];
    assert.deepEqual([view?.lastSync?.status, view?.lastSync?.contactId], ['synced', '77']);
    const search = hubspot.calls('POST', '/crm/v3/objects/contacts/search').find((call) => JSON.stringify(call.json).includes('grace@example.com'));
    assert.deepEqual(search?.json?.filterGroups, [{ filters: [{ propertyName: 'email', operator: 'EQ', value: 'grace@example.com' }] }]);
  });

  test('a 429 with Retry-After is retried after that delay and succeeds', async () => {
    const a = await account();
    const connection = (await a.connect('hubspot', { token: HUBSPOT_TOKEN })).body;
    const chat = await a.chat('hs-429');
    const from = hubspot.requests.length;
    hubspot.rateLimitNext(1, 1);
    await a.setStatus(chat.id, true);
    const settled = await a.settled(connection.id, chat.id);
    assert.equal(settled.status, 'synced');
    const objectCalls = hubspot.requests.slice(from).filter((r) => r.path.startsWith('/crm/v3/objects/'));
    const [limited, retried] = objectCalls;
    assert.ok(limited && retried);
    assert.ok(retried.at - limited.at >= 900, `retried after ${retried.at - limited.at} ms`);
    const view = (await a.list())[0];
    assert.deepEqual([view?.lastSync?.status, view?.lastSync?.attempts, view?.lastSync?.error], ['synced', 2, null]);
  });

  test('a refusal fails the sync for good: listed with the CRM\'s reason, in the connection view too', async () => {
    const token = 'pat-eu1-revoked-later';
    hubspot.addToken(token, 5151);
    const a = await account();
    const connection = (await a.connect('hubspot', { token })).body;
    const chat = await a.chat('hs-fail');
    hubspot.revoke(token);
    await a.setStatus(chat.id, true);
    assert.equal((await a.settled(connection.id, chat.id)).status, 'failed');
    const failures = await t.console<{ failures: (Sync & { connectionId: string; kind: string })[] }>(a.user.token, 'GET', '/crm/failures/');
    assert.equal(failures.status, 200);
    assert.equal(failures.body.failures.length, 1);
    const [failure] = failures.body.failures;
    assert.equal(failure?.connectionId, connection.id);
    assert.equal(failure?.kind, 'hubspot');
    assert.equal(failure?.chatId, chat.id);
    assert.equal(failure?.status, 'failed');
    assert.equal(failure?.attempts, 1);
    assert.match(failure?.error ?? '', /^Authentication credentials not found/);
    const view = (await a.list())[0];
    assert.equal(view?.failedCount, 1);
    assert.deepEqual(view?.recentFailures, failures.body.failures.map(({ connectionId: _c, kind: _k, ...sync }) => sync));
    const filtered = await t.console<{ failures: unknown[] }>(a.user.token, 'GET', '/crm/failures/', {
      query: { connectionId: '00000000-0000-7000-8000-000000000000' },
    });
    assert.deepEqual(filtered.body, { failures: [] });
  });

  test('an outage (5xx) is retried; a refusal echoing the token is stored and logged without it', async () => {
    const a = await account();
    const connection = (await a.connect('hubspot', { token: HUBSPOT_TOKEN })).body;
    const chat = await a.chat('hs-5xx');
    hubspot.failNext({ status: 502, message: 'Bad gateway' });
    await a.setStatus(chat.id, true);
    const first = await a.settled(connection.id, chat.id);
    assert.equal(first.status, 'synced');
    assert.equal((await a.list())[0]?.lastSync?.attempts, 2);

    const other = await a.chat('hs-echo');
    hubspot.failNext({ status: 400, message: `Property values were not valid: ${HUBSPOT_TOKEN} is no valid value` });
    await a.setStatus(other.id, true);
    assert.equal((await a.settled(connection.id, other.id)).status, 'failed');
    const failures = await t.console<{ failures: Sync[] }>(a.user.token, 'GET', '/crm/failures/', { query: { connectionId: connection.id } });
    assert.deepEqual(
      failures.body.failures.map((f) => [f.chatId, f.error]),
      [[other.id, 'Property values were not valid: [redacted] is no valid value']],
    );
    assert.ok(!t.logs.some((line) => line.includes(HUBSPOT_TOKEN)), 'the token is in no log line');
    const jobs = await queryRows<{ last_error: string | null }>(t.database.db, sql`select last_error from jobs where kind = 'crm.sync'`);
    assert.ok(!JSON.stringify(jobs).includes(HUBSPOT_TOKEN));
  });

  test("the agent's complete_task (trigger) syncs too, the agent's reply in the transcript", async () => {
    const llm = await startFakeLlm();
    try {
      const a = await account();
      const channel = await t.console<{ id: string }>(a.user.token, 'POST', '/channel/custom/connect/', {
        body: { name: 'Bookings', agentEngine: { kind: 'openai-compatible', baseUrl: `${llm.url}/v1`, model: 'test-model' } },
      });
      assert.equal(channel.status, 201, channel.text);
      const connection = (await a.connect('hubspot', { token: HUBSPOT_TOKEN })).body;
      llm.script('/v1/chat/completions', reply.completeTask('call_1', 'Table booked.'), reply.text('Your table is booked for 19:00.'));
      const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: a.user.key },
        body: { channel: 'custom', channelId: channel.body.id, externalChatId: 'trigger-1', role: 'user', text: 'A table at 19:00, please' },
      });
      assert.equal(sent.status, 201, sent.text);
      const chatId = await eventually(async () => {
        const [row] = await queryRows<{ chat_id: string }>(t.database.db, sql`select chat_id from crm_links where connection_id = ${connection.id}`);
        return row?.chat_id;
      }, 15_000);
      assert.equal((await a.settled(connection.id, chatId)).status, 'synced');
      const dealId = (await a.list())[0]?.lastSync?.dealId;
      const note = [...hubspot.notes.values()].find((n) => n.associations.some((x) => x.toId === dealId));
      assert.match(note?.properties.hs_note_body ?? '', /<strong>Agent<\/strong> [^<]+<br>Your table is booked for 19:00\./);
    } finally {
      await llm.close();
    }
  });

  test('the manual status change of the Inbox syncs too', async () => {
    const a = await account();
    const connection = (await a.connect('hubspot', { token: HUBSPOT_TOKEN })).body;
    const chat = await a.chat('hs-manual');
    const res = await t.console(a.user.token, 'POST', `/chat/status/${chat.id}/`, { body: { status: 'done' } });
    assert.equal(res.status, 200, res.text);
    assert.equal((await a.settled(connection.id, chat.id)).status, 'synced');
  });
});

describe('Pipedrive sync', () => {
  test('person (chat key field), deal and note; a second completion updates the deal; an e-mail finds the person', async () => {
    const a = await account();
    const connection = (await a.connect('pipedrive', { token: PIPEDRIVE_TOKEN, companyDomain: 'acme' })).body;
    const fieldKey = [...pipedrive.personFields].find(([, name]) => name === 'Parley chat key')?.[0] ?? '';
    const chat = await a.chat('pd-1');
    const personsBefore = pipedrive.persons.size;
    const dealsBefore = pipedrive.deals.size;
    await a.setStatus(chat.id, true);
    const first = await a.settled(connection.id, chat.id);
    assert.equal(first.status, 'synced');
    const person = [...pipedrive.persons.values()].find((p) => p.fields[fieldKey] === chat.uniqueId);
    assert.deepEqual(person?.fields, { name: 'Ada Lovelace', [fieldKey]: chat.uniqueId });
    const deal = [...pipedrive.deals.values()].find((d) => d.fields.person_id === person?.id);
    assert.equal(deal?.fields.title, 'Ada Lovelace (Shop 1)');
    const notes = [...pipedrive.notes.values()].filter((n) => n.fields.deal_id === deal?.id);
    assert.equal(notes.length, 1);
    assert.equal(notes[0]?.fields.person_id, person?.id);
    assert.match(String(notes[0]?.fields.content), /Hello, I want a &lt;b&gt;quote&lt;\/b&gt; \(pd-1\)/);
    const search = pipedrive.calls('GET', '/api/v1/persons/search').at(-1);
    assert.deepEqual(Object.fromEntries(search?.query ?? []), { term: chat.uniqueId, fields: 'custom_fields', exact_match: 'true', limit: '1' });

    await a.setStatus(chat.id, false);
    await eventually(async () => !(await t.api<{ chats: { id: string; isTriggered: boolean }[] }>(a.user.key, '/chats/chat')).body.chats.find((c) => c.id === chat.id)?.isTriggered);
    await a.setStatus(chat.id, true);
    await a.settled(connection.id, chat.id, first.updated_at);
    assert.equal(pipedrive.persons.size, personsBefore + 1);
    assert.equal(pipedrive.deals.size, dealsBefore + 1);
    assert.equal(pipedrive.calls('PUT', `/api/v1/deals/${deal?.id}`).length, 1);
    assert.equal([...pipedrive.notes.values()].filter((n) => n.fields.deal_id === deal?.id).length, 2);

    const mailed = await a.chat('pd-mail');
    await t.database.db.execute(sql`update chats set email = 'linus@example.com' where id = ${mailed.id}`);
    await a.setStatus(mailed.id, true);
    await a.settled(connection.id, mailed.id);
    const created = [...pipedrive.persons.values()].find((p) => JSON.stringify(p.fields.email ?? '').includes('linus@example.com'));
    assert.deepEqual(created?.fields.email, [{ value: 'linus@example.com', primary: true, label: 'work' }]);
    // The same e-mail on another chat: found by e-mail, no new person.
    const again = await a.chat('pd-mail-2');
    await t.database.db.execute(sql`update chats set email = 'linus@example.com' where id = ${again.id}`);
    const before = pipedrive.persons.size;
    await a.setStatus(again.id, true);
    await a.settled(connection.id, again.id);
    assert.equal(pipedrive.persons.size, before);
  });

  test('a 429 with Retry-After is retried and succeeds', async () => {
    const a = await account();
    const connection = (await a.connect('pipedrive', { token: PIPEDRIVE_TOKEN, companyDomain: 'acme' })).body;
    const chat = await a.chat('pd-429');
    pipedrive.rateLimitNext(2, 1);
    await a.setStatus(chat.id, true);
    assert.equal((await a.settled(connection.id, chat.id)).status, 'synced');
    assert.equal((await a.list())[0]?.lastSync?.attempts, 3);
  });
});

describe('channels a connection applies to', () => {
  test('limited to channel A, chats of channel B are not synced; PUT null makes it apply everywhere', async () => {
    const a = await account(2);
    const [channelA, channelB] = a.channelIds as [string, string];
    const connection = (await a.connect('hubspot', { token: HUBSPOT_TOKEN, channelIds: [channelA] })).body;
    assert.deepEqual(connection.channelIds, [channelA]);
    const onB = await a.chat('scope-b', channelB);
    const onA = await a.chat('scope-a', channelA);
    await a.setStatus(onB.id, true);
    await a.setStatus(onA.id, true);
    await a.settled(connection.id, onA.id);
    // B's completion was committed before A's: had it been enqueued, its row would exist already.
    const links = await queryRows<{ chat_id: string }>(t.database.db, sql`select chat_id from crm_links where connection_id = ${connection.id}`);
    assert.deepEqual(links.map((l) => l.chat_id), [onA.id]);
    const jobs = await queryRows(t.database.db, sql`select id from jobs where kind = 'crm.sync' and payload->>'chatId' = ${onB.id}`);
    assert.deepEqual(jobs, []);

    const put = await t.console<Connection>(a.user.token, 'PUT', `/crm/${connection.id}/`, { body: { channelIds: null } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.channelIds, null);
    await a.setStatus(onB.id, false);
    await eventually(async () => !(await t.api<{ chats: { id: string; isTriggered: boolean }[] }>(a.user.key, '/chats/chat')).body.chats.find((c) => c.id === onB.id)?.isTriggered);
    await a.setStatus(onB.id, true);
    assert.equal((await a.settled(connection.id, onB.id)).status, 'synced');

    const bad = await t.console(a.user.token, 'PUT', `/crm/${connection.id}`, { body: { channelIds: ['cc:unknown'] } });
    assert.deepEqual([bad.status, bad.body], [400, { message: 'channelIds: channel not found: cc:unknown', statusCode: 400 }]);
    assert.equal((await t.console(a.user.token, 'PUT', `/crm/${connection.id}/`, { body: {} })).status, 400);
  });
});

describe('isolation between accounts, disconnect', () => {
  test("another account neither sees nor changes a connection, nor names another account's channels", async () => {
    const owner = await account();
    const other = await account();
    const connection = (await owner.connect('hubspot', { token: HUBSPOT_TOKEN })).body;
    assert.deepEqual(await other.list(), []);
    const put = await t.console(other.user.token, 'PUT', `/crm/${connection.id}/`, { body: { channelIds: null } });
    assert.deepEqual([put.status, put.body], [404, { message: 'CRM connection not found', statusCode: 404 }]);
    const del = await t.console(other.user.token, 'DELETE', `/crm/${connection.id}/`);
    assert.deepEqual([del.status, del.body], [404, { message: 'CRM connection not found', statusCode: 404 }]);
    const failures = await t.console(other.user.token, 'GET', '/crm/failures/', { query: { connectionId: connection.id } });
    assert.deepEqual([failures.status, failures.body], [200, { failures: [] }]);
    const foreign = await other.connect('hubspot', { token: HUBSPOT_TOKEN, channelIds: owner.channelIds });
    assert.equal(foreign.status, 400);
    const reach = await t.console(other.user.token, 'PUT', `/crm/${(await other.connect('hubspot', { token: HUBSPOT_TOKEN })).body.id}/`, {
      body: { channelIds: owner.channelIds },
    });
    assert.equal(reach.status, 400);
    // A completion in the other account's chat goes to its own connection only.
    const chat = await owner.chat('iso-1');
    await owner.setStatus(chat.id, true);
    await owner.settled(connection.id, chat.id);
    const links = await queryRows<{ connection_id: string }>(t.database.db, sql`select connection_id from crm_links where chat_id = ${chat.id}`);
    assert.deepEqual(links.map((l) => l.connection_id), [connection.id]);
    assert.equal((await owner.list()).length, 1);
  });

  test('disconnect deletes the connection and its token; a second delete is 404; a bad id is 400', async () => {
    const a = await account();
    const connection = (await a.connect('pipedrive', { token: PIPEDRIVE_TOKEN, companyDomain: 'acme' })).body;
    const del = await t.console(a.user.token, 'DELETE', `/crm/${connection.id}/`);
    assert.deepEqual([del.status, del.body], [200, { success: true }]);
    assert.deepEqual(await a.list(), []);
    assert.deepEqual(await storedConnections(a.user.accountId), []);
    assert.equal((await t.console(a.user.token, 'DELETE', `/crm/${connection.id}`)).status, 404);
    assert.equal((await t.console(a.user.token, 'DELETE', '/crm/not-a-uuid/')).status, 400);
  });
});
