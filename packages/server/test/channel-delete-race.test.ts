// A channel deleted while a message to it is being stored (issue #23, item 7): the send lands before the delete
// or is answered as for a channel that does not exist, never a 500; messages to other channels stored in the
// same moments are all kept.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { png } from './fixtures/files/samples.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

let t: TestApp;
let key: string;
let token: string;
let keptChannelId: string;
before(async () => {
  t = await startTestApp({ rateLimitMax: 1_000_000 }); // some 400 API calls, as fast as the machine allows
  const user = await t.createConsoleUser();
  key = user.key;
  token = user.token;
  keptChannelId = await connect('Kept');
});
after(() => t.close());

async function connect(name: string, settings: Record<string, unknown> = {}): Promise<string> {
  const res = await t.console<{ id: string }>(token, 'POST', '/channel/custom/connect/', { body: { name, ...settings } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

/** send-message-universal as multipart with one file (the probe); its status and body. */
async function send(channelId: string, externalChatId: string, text: string) {
  const form = new FormData();
  for (const [name, value] of Object.entries({ channel: 'custom', channelId, externalChatId, role: 'user', text })) form.append(name, value);
  form.append('files', new Blob([png()], { type: 'image/png' }), 'photo.png');
  const res = await fetch(`${t.url}/api/v1/chats/chat/send-message-universal`, { method: 'POST', headers: { authorization: key }, body: form });
  return { status: res.status, text: await res.text() };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a send racing the delete of its channel: 201 as for an unknown channel or stored before it, never a 500', async () => {
  // What a channel that does not exist gets: the answer every racing send must give.
  const unknown = await send(`cc:${randomBytes(18).toString('base64url')}`, 'race-unknown', 'hello');
  assert.deepEqual(unknown, { status: 201, text: '' });

  const TRIES = 150;
  const answers: { status: number; text: string }[] = [];
  const deletes: { status: number; text: string }[] = [];
  const others: { status: number; text: string }[] = [];
  for (let i = 0; i < TRIES; i += 1) {
    // Three ways in: a new chat; a chat the process already knows (its message updates it, no chat INSERT); a
    // channel outside its (empty) working hours with an auto-reply (the step-by-step transaction). The agent
    // answers none of them: its reply racing the delete is a separate matter, not tested here.
    const variant = i % 3;
    const channelId = await connect(
      `Doomed ${i}`,
      variant === 2 ? { workingHours: { timeZone: 'UTC', intervals: [] }, autoReply: 'Closed' } : { disableAgentResponses: true },
    );
    if (variant === 1) assert.deepEqual(await send(channelId, 'race-chat', 'first'), { status: 201, text: '' });
    const [racing, deleted, other] = await Promise.all([
      send(channelId, 'race-chat', `try ${i}`),
      // 0 to 20 ms after the send, each variant through the whole range.
      pause(Math.floor(i / 3) % 21).then(() => t.console(token, 'DELETE', `/channel/custom/${channelId}/`)),
      // A message to a channel that stays, written in the same moments (possibly in the same statement).
      pause(i % 7).then(() => send(keptChannelId, `kept-${i}`, `kept ${i}`)),
    ]);
    answers.push(racing);
    deletes.push({ status: deleted.status, text: deleted.text });
    others.push(other);
    if (deleted.status !== 200) continue; // reported below
    // Nothing of the deleted channel is left: what landed before the delete went with it.
    const left = await queryRows<{ n: number }>(
      t.database.db,
      sql`select (select count(*) from chats where channel_id = ${channelId})::int
               + (select count(*) from events where channel_id = ${channelId})::int as n`,
    );
    assert.equal(left[0]?.n, 0, `try ${i}: rows of the deleted channel`);
  }
  // The server's own account of each failure (SQLSTATE, constraint), for the assertion messages.
  const errors = [
    ...new Set(
      t.logs.filter((line) => line.includes('"request failed"')).map((line) => {
        type Logged = { code?: string; message?: string; cause?: Logged };
        const { err } = JSON.parse(line) as { err?: Logged };
        const cause = err?.cause ?? err; // a failed query: Drizzle's error, the database's in `cause`
        return `${cause?.code ?? ''} ${cause?.message ?? ''}`;
      }),
    ),
  ];
  const unlike = (list: { status: number; text: string }[], expected: { status: number; text: string }) =>
    list.map((answer, i) => ({ i, ...answer })).filter((answer) => answer.status !== expected.status || answer.text !== expected.text);
  const failedSends = unlike(answers, { status: 201, text: '' });
  assert.deepEqual(failedSends, [], `${failedSends.length} of ${TRIES} sends were not answered as for an unknown channel: ${errors.join('; ')}`);
  const failedDeletes = unlike(deletes, { status: 200, text: '{"success":true}' });
  assert.deepEqual(failedDeletes, [], `${failedDeletes.length} of ${TRIES} deletes failed: ${errors.join('; ')}`);
  assert.deepEqual(unlike(others, { status: 201, text: '' }), [], `messages to the kept channel: ${errors.join('; ')}`);
  assert.deepEqual(errors, []);
  const stored = await queryRows<{ n: number }>(
    t.database.db,
    sql`select count(*)::int as n from messages m join chats c on c.id = m.chat_id
        where c.channel_id = ${keptChannelId} and m.role = 'user'`,
  );
  assert.equal(stored[0]?.n, TRIES, 'every message to the kept channel is stored');
});
