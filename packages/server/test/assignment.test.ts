// Auto-assignment, availability and team hours (issue #44, item 2) over HTTP against a real database: a member's
// availability (`PUT /me/`), a member's capacity (`PUT /members/{id}/`), `GET`/`PUT /account/assignment/` and
// `/account/hours/` (validation, admin only, per account); handed-off chats reach available members fairly (round
// robin, least busy) within capacity, wait in order otherwise, and are assigned oldest first when a member becomes
// available, marks one done or unassigns one; outside team hours the handoff's message says when the team is back and
// chats are assigned when the hours open (an injected clock moved forward).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

const HANDOFF_EN = 'I am passing your conversation to a member of our team; they will reply here as soon as they can.';
const HANDOFF_RU = 'Я передаю ваш разговор сотруднику нашей команды; он ответит здесь, как только сможет.';
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const WEEKDAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const RU_WEEKDAYS = ['в понедельник', 'во вторник', 'в среду', 'в четверг', 'в пятницу', 'в субботу', 'в воскресенье'];

interface InboxChat {
  id: string;
  chatId: string;
  needsHuman: boolean;
  assignee: { id: string; name: string } | null;
}

let counter = 0;
const uniqueEmail = (name: string) => `${name}-${process.pid}-${Date.now()}-${(counter += 1)}@example.com`;

/** Invites `email` as `role` and accepts: the member's id and console token. */
async function addMember(t: TestApp, ownerToken: string, role: 'admin' | 'agent', name: string) {
  const email = uniqueEmail(role);
  const invite = await t.console<{ id: string; inviteUrl: string }>(ownerToken, 'POST', '/members/invite/', { body: { email, role } });
  assert.equal(invite.status, 201, invite.text);
  const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
    body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name, password: PASSWORD },
  });
  assert.equal(accepted.status, 200, accepted.text);
  return { id: invite.body.id, token: accepted.body.token };
}

/** Weekly hours open only on the weekday two days from `now` (UTC), 09:00–17:00, and that opening. */
function hoursTwoDaysAhead(now: Date) {
  const opening = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 2, 9));
  const weekday = (opening.getUTCDay() + 6) % 7;
  const weekly = Object.fromEntries(WEEKDAYS.map((day, index) => [day, index === weekday ? [['09:00', '17:00']] : []]));
  return { hours: { timezone: 'UTC', weekly }, opening, weekday };
}

describe('auto-assignment, availability and team hours', () => {
  let t: TestApp;
  /** The app's clock runs `shift` ms ahead of the real one (team hours that open). */
  let shift = 0;
  before(async () => {
    t = await startTestApp({ conversationSweepMs: 300, clock: { now: () => new Date(Date.now() + shift) } });
  });
  after(() => t.close());

  /** An account (its owner set away) with two agents, an API channel, and the given assignment. */
  async function setUp(assignment: Record<string, unknown>, channelFields: Record<string, unknown> = {}) {
    const owner = await t.createConsoleUser();
    const ann = await addMember(t, owner.token, 'agent', 'Ann');
    const bob = await addMember(t, owner.token, 'agent', 'Bob');
    assert.equal((await t.console(owner.token, 'PUT', '/me/', { body: { availability: 'away' } })).status, 200);
    const saved = await t.console(owner.token, 'PUT', '/account/assignment/', { body: assignment });
    assert.equal(saved.status, 200, saved.text);
    const channel = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', { body: { name: 'Shop', ...channelFields } });
    assert.equal(channel.status, 201, channel.text);
    const send = async (externalChatId: string, text: string) => {
      const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: owner.key },
        body: { channel: 'custom', channelId: channel.body.id, externalChatId, role: 'user', text, senderName: `Customer ${externalChatId}` },
      });
      assert.equal(res.status, 201, res.text);
    };
    const chat = async (externalChatId: string) => {
      const list = await t.console<{ chats: InboxChat[] }>(owner.token, 'GET', '/chat/all-chats/', { query: { channelId: channel.body.id } });
      return list.body.chats.find((c) => c.chatId === externalChatId);
    };
    /** The customer asks for a person: the chat is handed off; its console id. */
    const handOff = async (externalChatId: string, request = 'Can I talk to a real person please?') => {
      await send(externalChatId, request);
      return (await eventually(async () => {
        const found = await chat(externalChatId);
        return found?.needsHuman ? found : undefined;
      })).id;
    };
    /** Waits until the chat's assignee is `memberId` (null: unassigned, after the run that would assign it). */
    const assignedTo = async (externalChatId: string, memberId: string) =>
      eventually(async () => (await chat(externalChatId))?.assignee?.id === memberId);
    /** Every assignment job of the account has run: what waits now stays waiting. */
    const settled = () =>
      eventually(async () => {
        const [row] = await queryRows<{ n: number }>(
          t.database.db,
          sql`select count(*)::int as n from jobs where kind = 'assignment.run' and payload->>'accountId' = ${owner.accountId}`,
        );
        return row?.n === 0;
      });
    return { owner, ann, bob, channelId: channel.body.id, send, chat, handOff, assignedTo, settled };
  }

  test('GET/PUT /account/assignment/ and /account/hours/: defaults, validation (400), admin only (403), per account', async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(t, owner.token, 'agent', 'Agent');
    const admin = await addMember(t, owner.token, 'admin', 'Admin');
    assert.deepEqual((await t.console(owner.token, 'GET', '/account/assignment/')).body, { mode: 'off', capacity: 10, onlyAvailable: true });
    assert.deepEqual((await t.console(owner.token, 'GET', '/account/hours/')).body, { timezone: 'UTC', weekly: null });

    const put = await t.console(admin.token, 'PUT', '/account/assignment/', { body: { mode: 'least_busy', capacity: 3 } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body, { mode: 'least_busy', capacity: 3, onlyAvailable: true });
    assert.deepEqual((await t.console(owner.token, 'PUT', '/account/assignment/', { body: { onlyAvailable: false } })).body, {
      mode: 'least_busy',
      capacity: 3,
      onlyAvailable: false,
    });
    for (const body of [{ capacity: 0 }, { capacity: 101 }, { capacity: 2.5 }, { mode: 'random' }, { onlyAvailable: 'yes' }, { extra: 1 }]) {
      const bad = await t.console<{ statusCode: number }>(owner.token, 'PUT', '/account/assignment/', { body });
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.statusCode, 400);
    }
    assert.deepEqual((await t.console(owner.token, 'GET', '/account/assignment/')).body, { mode: 'least_busy', capacity: 3, onlyAvailable: false });

    const weekly = { mon: [['09:00', '12:00'], ['13:00', '18:00']], tue: [['09:00', '18:00']], wed: [], thu: [['00:00', '24:00']], fri: [], sat: [], sun: [] };
    const hours = await t.console(admin.token, 'PUT', '/account/hours/', { body: { timezone: 'Europe/Berlin', weekly } });
    assert.equal(hours.status, 200, hours.text);
    assert.deepEqual(hours.body, { timezone: 'Europe/Berlin', weekly });
    assert.deepEqual((await t.console(owner.token, 'GET', '/account/hours/')).body, { timezone: 'Europe/Berlin', weekly });
    const zone = await t.console(owner.token, 'PUT', '/account/hours/', { body: { timezone: 'Mars/Olympus', weekly } });
    assert.deepEqual([zone.status, zone.body], [400, { message: 'timezone: unknown time zone "Mars/Olympus"', statusCode: 400 }]);
    const backwards = await t.console(owner.token, 'PUT', '/account/hours/', { body: { timezone: 'UTC', weekly: { ...weekly, tue: [['09:00', '18:00'], ['12:00', '11:00']] } } });
    assert.deepEqual([backwards.status, backwards.body], [400, { message: 'weekly.tue[1]: "from" must be before "to"', statusCode: 400 }]);
    for (const body of [
      { timezone: 'UTC', weekly: { ...weekly, mon: [['9:00', '12:00']] } },
      { timezone: 'UTC', weekly: { ...weekly, mon: [['09:00', '25:00']] } },
      { timezone: 'UTC', weekly: { ...weekly, mon: [['09:00']] } },
      { timezone: 'UTC', weekly: { mon: [] } },
      { timezone: 'UTC', weekly: { ...weekly, holiday: [] } },
      { weekly: null },
      { timezone: '', weekly: null },
    ]) {
      assert.equal((await t.console(owner.token, 'PUT', '/account/hours/', { body })).status, 400, JSON.stringify(body));
    }
    assert.deepEqual((await t.console(owner.token, 'GET', '/account/hours/')).body, { timezone: 'Europe/Berlin', weekly });
    assert.deepEqual((await t.console(owner.token, 'PUT', '/account/hours/', { body: { timezone: 'Asia/Tokyo', weekly: null } })).body, {
      timezone: 'Asia/Tokyo',
      weekly: null,
    });

    // An agent reads and changes neither.
    for (const [method, path, body] of [
      ['GET', '/account/assignment/', undefined],
      ['PUT', '/account/assignment/', { mode: 'off' }],
      ['GET', '/account/hours/', undefined],
      ['PUT', '/account/hours/', { timezone: 'UTC', weekly: null }],
    ] as const) {
      const refused = await t.console(agent.token, method, path, body ? { body } : {});
      assert.deepEqual([refused.status, refused.body], [403, { message: 'Forbidden for your role', statusCode: 403 }], `${method} ${path}`);
    }
    // Another account sees its own.
    const stranger = await t.createConsoleUser();
    assert.deepEqual((await t.console(stranger.token, 'GET', '/account/assignment/')).body, { mode: 'off', capacity: 10, onlyAvailable: true });
    assert.deepEqual((await t.console(stranger.token, 'GET', '/account/hours/')).body, { timezone: 'UTC', weekly: null });
  });

  test("a member's availability (PUT /me/, default available) and awayWhenOffline; a member's capacity (admin, per account)", async () => {
    const owner = await t.createConsoleUser();
    const agent = await addMember(t, owner.token, 'agent', 'Agent');
    const me = await t.console<Record<string, unknown>>(agent.token, 'GET', '/me/');
    assert.deepEqual([me.body.availability, me.body.awayWhenOffline], ['available', false]);
    const away = await t.console<Record<string, unknown>>(agent.token, 'PUT', '/me/', { body: { availability: 'away', awayWhenOffline: true } });
    assert.equal(away.status, 200, away.text);
    assert.deepEqual([away.body.availability, away.body.awayWhenOffline, away.body.name], ['away', true, 'Agent']);
    assert.deepEqual((await t.console<Record<string, unknown>>(agent.token, 'GET', '/me/')).body.availability, 'away');
    assert.equal((await t.console(agent.token, 'PUT', '/me/', { body: { availability: 'busy' } })).status, 400);
    assert.equal((await t.console(agent.token, 'PUT', '/me/', { body: { awayWhenOffline: 'yes' } })).status, 400);

    // Capacity: the admin's, where members are edited; null = the account's.
    const members = await t.console<{ members: { id: string; capacity: number | null }[] }>(owner.token, 'GET', '/members/');
    assert.deepEqual(members.body.members.map((m) => m.capacity), [null, null]);
    const set = await t.console<Record<string, unknown>>(owner.token, 'PUT', `/members/${agent.id}/`, { body: { capacity: 3 } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual([set.body.capacity, set.body.role], [3, 'agent']);
    // A capacity change keeps the member signed in (a role change does not).
    assert.equal((await t.console(agent.token, 'GET', '/me/')).status, 200);
    assert.equal((await t.console(owner.token, 'PUT', `/members/${owner.accountId}/`, { body: { capacity: 5 } })).status, 200);
    for (const body of [{ capacity: 0 }, { capacity: 101 }, { capacity: '3' }]) {
      assert.equal((await t.console(owner.token, 'PUT', `/members/${agent.id}/`, { body })).status, 400, JSON.stringify(body));
    }
    assert.equal((await t.console(agent.token, 'PUT', `/members/${agent.id}/`, { body: { capacity: 50 } })).status, 403);
    const stranger = await t.createConsoleUser();
    const foreign = await t.console(stranger.token, 'PUT', `/members/${agent.id}/`, { body: { capacity: 1 } });
    assert.equal(foreign.status, 404, foreign.text);
    const listed = await t.console<{ members: { id: string; capacity: number | null }[] }>(owner.token, 'GET', '/members/');
    assert.deepEqual(
      Object.fromEntries(listed.body.members.map((m) => [m.id, m.capacity])),
      { [owner.accountId]: 5, [agent.id]: 3 },
    );
    assert.deepEqual((await t.console<Record<string, unknown>>(owner.token, 'PUT', `/members/${agent.id}/`, { body: { capacity: null } })).body.capacity, null);
  });

  test('round robin: handed-off chats go to the available member assigned least recently, in turn; away members get none', async () => {
    const s = await setUp({ mode: 'round_robin' });
    await s.handOff('r1');
    const first = (await eventually(async () => (await s.chat('r1'))?.assignee))!.id;
    const second = first === s.ann.id ? s.bob.id : s.ann.id;
    assert.ok([s.ann.id, s.bob.id].includes(first));
    await s.handOff('r2');
    await s.assignedTo('r2', second);
    await s.handOff('r3');
    await s.assignedTo('r3', first);
    await s.handOff('r4');
    await s.assignedTo('r4', second);
    // The owner is away: no chat of theirs.
    const [owned] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from chats where assignee_id = ${s.owner.accountId}`);
    assert.equal(owned?.n, 0);
  });

  test('least busy: the member with the fewest open assigned chats; done chats do not count', async () => {
    const s = await setUp({ mode: 'least_busy' });
    // Ann holds two open chats (assigned by hand) and a done one; Bob none.
    for (const id of ['l1', 'l2', 'l3']) await s.send(id, 'Hello');
    for (const id of ['l1', 'l2', 'l3']) {
      const chat = (await eventually(() => s.chat(id)))!;
      assert.equal((await t.console(s.owner.token, 'POST', `/chat/assign/${chat.id}/`, { body: { memberId: s.ann.id } })).status, 200);
    }
    const done = (await s.chat('l3'))!;
    assert.equal((await t.console(s.owner.token, 'POST', `/chat/status/${done.id}/`, { body: { status: 'done' } })).status, 200);
    await s.handOff('l4');
    await s.assignedTo('l4', s.bob.id);
    await s.handOff('l5');
    await s.assignedTo('l5', s.bob.id);
    // Two each now: the one assigned least recently (Ann, never by auto-assignment) is next.
    await s.handOff('l6');
    await s.assignedTo('l6', s.ann.id);
  });

  test('capacity: none beyond it; waiting chats are assigned oldest first when a member becomes available, marks one done or unassigns one', async () => {
    const s = await setUp({ mode: 'round_robin', capacity: 1 });
    // Bob is away: Ann alone takes chats, one at a time.
    assert.equal((await t.console(s.bob.token, 'PUT', '/me/', { body: { availability: 'away' } })).status, 200);
    const q1 = await s.handOff('q1');
    await s.assignedTo('q1', s.ann.id);
    await s.handOff('q2');
    await s.handOff('q3');
    await s.handOff('q4');
    await s.settled();
    assert.deepEqual(await Promise.all(['q2', 'q3', 'q4'].map(async (id) => (await s.chat(id))?.assignee ?? null)), [null, null, null]);

    // Bob becomes available: the oldest waiting chat is his.
    assert.equal((await t.console(s.bob.token, 'PUT', '/me/', { body: { availability: 'available' } })).status, 200);
    await s.assignedTo('q2', s.bob.id);
    await s.settled();
    assert.equal((await s.chat('q3'))?.assignee, null);

    // Ann marks hers done: the next oldest is hers.
    assert.equal((await t.console(s.ann.token, 'POST', `/chat/status/${q1}/`, { body: { status: 'done' } })).status, 200);
    await s.assignedTo('q3', s.ann.id);
    await s.settled();
    assert.equal((await s.chat('q4'))?.assignee, null);

    // Bob answers his chat (it no longer needs a person) and unassigns it: the last one waiting is his.
    const q2 = (await s.chat('q2'))!.id;
    assert.equal((await t.console(s.bob.token, 'POST', `/chat/messages/${q2}/`, { body: { text: 'Sorted, thanks!' } })).status, 201);
    assert.equal((await t.console(s.bob.token, 'POST', `/chat/assign/${q2}/`, { body: { memberId: null } })).status, 200);
    await s.assignedTo('q4', s.bob.id);
    await s.settled();
    assert.equal((await s.chat('q2'))?.assignee, null);

    // A member's own capacity beats the account's: Ann takes a second chat.
    assert.equal((await t.console(s.owner.token, 'PUT', `/members/${s.ann.id}/`, { body: { capacity: 2 } })).status, 200);
    await s.handOff('q5');
    await s.assignedTo('q5', s.ann.id);

    // onlyAvailable off: the away owner may get one too.
    await s.handOff('q6');
    await s.settled();
    assert.equal((await s.chat('q6'))?.assignee, null);
    assert.equal((await t.console(s.owner.token, 'PUT', '/account/assignment/', { body: { onlyAvailable: false } })).status, 200);
    await s.assignedTo('q6', s.owner.accountId);

    // Follow-through (the ingest statement's flag): the customer of the answered, unassigned (still paused) chat
    // writes again: it needs a person again and goes to the one member with room.
    assert.equal((await t.console(s.owner.token, 'PUT', `/members/${s.owner.accountId}/`, { body: { capacity: 2 } })).status, 200);
    await s.settled();
    await s.send('q2', 'Sorry, one more question');
    await s.assignedTo('q2', s.owner.accountId);
  });

  test('mode off assigns nothing; another account never gets the chats', async () => {
    const s = await setUp({ mode: 'off' });
    const other = await setUp({ mode: 'round_robin' });
    await s.handOff('o1');
    await s.settled();
    assert.equal((await s.chat('o1'))?.assignee, null);
    // Switching it on assigns the waiting chat, within the account.
    assert.equal((await t.console(s.owner.token, 'PUT', '/account/assignment/', { body: { mode: 'round_robin' } })).status, 200);
    const assignee = (await eventually(async () => (await s.chat('o1'))?.assignee))!.id;
    assert.ok([s.ann.id, s.bob.id].includes(assignee));
    assert.notEqual(assignee, other.ann.id);
  });

  test('outside team hours: the handoff message says when the team is back (aiLang), and chats are assigned at opening, oldest first', async () => {
    const { hours, opening, weekday } = hoursTwoDaysAhead(new Date());
    const s = await setUp({ mode: 'round_robin' });
    assert.equal((await t.console(s.owner.token, 'PUT', '/account/hours/', { body: hours })).status, 200);
    await s.handOff('h1');
    await s.handOff('h2');
    const messages = await t.console<{ messages: { kind: string; role: string; text: string }[] }>(s.owner.token, 'GET', `/chat/messages/${(await s.chat('h1'))!.id}/`);
    assert.equal(messages.body.messages.filter((m) => m.kind === 'message' && m.role === 'assistant').at(-1)?.text, `${HANDOFF_EN} We are back ${WEEKDAY_NAMES[weekday]} at 09:00.`);

    // In Russian for a Russian channel.
    const ru = await t.console<{ id: string }>(s.owner.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Магазин', settings: { aiLang: 'ru' } },
    });
    assert.equal(ru.status, 201, ru.text);
    await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: s.owner.key },
      body: { channel: 'custom', channelId: ru.body.id, externalChatId: 'ru1', role: 'user', text: 'Позовите оператора', senderName: 'Иван' },
    });
    const ruText = await eventually(async () => {
      const [row] = await queryRows<{ text: string }>(
        t.database.db,
        sql`select m.text from messages m join chats c on c.id = m.chat_id
            where c.channel_id = ${ru.body.id} and m.role = 'assistant' order by m.created_at desc limit 1`,
      );
      return row?.text;
    });
    assert.equal(ruText, `${HANDOFF_RU} Мы вернёмся ${RU_WEEKDAYS[weekday]} в 09:00.`);

    // Nothing is assigned while closed.
    await s.settled();
    assert.deepEqual([(await s.chat('h1'))?.assignee, (await s.chat('h2'))?.assignee], [null, null]);

    // The hours open (the clock moves to opening time): the sweep assigns them, oldest first, in turn.
    const [h1, h2] = [(await s.chat('h1'))!.id, (await s.chat('h2'))!.id];
    shift = opening.getTime() + 60_000 - Date.now();
    try {
      const rows = await eventually(async () => {
        const found = await queryRows<{ id: string; assignee: string | null; at: Date }>(
          t.database.db,
          sql`select c.id, c.assignee_id as assignee, m.last_assigned_at as at from chats c left join members m on m.id = c.assignee_id
              where c.id in (${h1}, ${h2}, (select id from chats where channel_id = ${ru.body.id}))`,
        );
        return found.every((row) => row.assignee !== null) ? found : undefined;
      });
      const byId = new Map(rows.map((row) => [row.id, row.assignee]));
      assert.notEqual(byId.get(h1), byId.get(h2));
      // h1 waited longest: the first assignment (the least recent of the two members' last ones is not h1's member).
      const [first] = await queryRows<{ assignee: string }>(
        t.database.db,
        sql`select assignee_id as assignee from chats where id in (${h1}, ${h2}) order by updated_at limit 1`,
      );
      assert.equal(first?.assignee, byId.get(h1));
    } finally {
      shift = 0;
    }
  });

  test('team hours that include now: the handoff message is the plain one and the chat is assigned at once', async () => {
    const s = await setUp({ mode: 'round_robin' });
    const always = Object.fromEntries(WEEKDAYS.map((day) => [day, [['00:00', '24:00']]]));
    assert.equal((await t.console(s.owner.token, 'PUT', '/account/hours/', { body: { timezone: 'Pacific/Auckland', weekly: always } })).status, 200);
    const chatId = await s.handOff('n1');
    const messages = await t.console<{ messages: { kind: string; role: string; text: string }[] }>(s.owner.token, 'GET', `/chat/messages/${chatId}/`);
    assert.equal(messages.body.messages.filter((m) => m.kind === 'message' && m.role === 'assistant').at(-1)?.text, HANDOFF_EN);
    await eventually(async () => (await s.chat('n1'))?.assignee);
  });
});
