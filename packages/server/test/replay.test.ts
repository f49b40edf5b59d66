// Replay and knowledge gaps over HTTP (issue #37; docs/architecture.md, Replay and knowledge gaps): a history replay of
// real chats (customer messages through the public API, member replies from the console) with every verdict, the
// summary, marks and estimatedPrecision; nothing sent during a replay (no webhook, no message in any chat); uploads
// of CSV and JSON, malformed ones with their exact 400s; knowledge gaps grouped by meaning; isolation and roles.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KnowledgeGap, Replay, ReplayItem } from '@parley/contracts';
import { eventually } from './support/events.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const ENTRIES = [
  { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
  { question: 'How much does shipping cost?', answer: 'Shipping is free above 50 euros, else 4.90 euros.' },
  { question: 'Do you ship abroad?', answer: 'We ship to every country of the European Union.' },
  { question: 'How do I return an item?', answer: 'Send it back within 30 days with the return label from your account.' },
  { question: 'Which payment methods do you accept?', answer: 'Cards, PayPal and bank transfer.' },
];

type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;

let t: TestApp;
let receiver: Receiver;
let counter = 0;
before(async () => {
  t = await startTestApp({ webhookAllowPrivateNetworks: true });
  receiver = await startReceiver();
});
after(async () => {
  await t.close();
  await receiver.close();
});

async function addMember(owner: User, role: 'admin' | 'agent') {
  counter += 1;
  const email = `replay-${role}-${counter}-${process.pid}@example.com`;
  const invite = await t.console<{ id: string; inviteUrl: string }>(owner.token, 'POST', '/members/invite/', { body: { email, role } });
  assert.equal(invite.status, 201, invite.text);
  const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
    body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: `Member ${counter}`, password: PASSWORD },
  });
  assert.equal(accepted.status, 200, accepted.text);
  return accepted.body.token;
}

/** An account with the FAQ base and an API channel using it (its webhook: the receiver). */
async function setUp(channel: Record<string, unknown> = {}) {
  const owner = await t.createConsoleUser();
  const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
  assert.equal(base.status, 201, base.text);
  for (const entry of ENTRIES) {
    const res = await t.console(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: entry });
    assert.equal(res.status, 201, res.text);
  }
  const hook = `/hook-${++counter}`;
  const created = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', {
    body: { name: 'Support', webhookUrl: `${receiver.url}${hook}`, knowledgeBaseId: base.body.id, ...channel },
  });
  assert.equal(created.status, 201, created.text);
  const channelId = created.body.id;
  /** A customer message in the chat; its console id. */
  const ask = async (externalChatId: string, text: string) => {
    const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: owner.key },
      body: { channel: 'custom', channelId, externalChatId, role: 'user', text },
    });
    assert.equal(sent.status, 201, sent.text);
    const list = await t.api<{ chats: { id: string; chatId: string }[] }>(owner.key, '/chats/chat', { channelId });
    return list.body.chats.find((c) => c.chatId === externalChatId)?.id ?? '';
  };
  const answer = async (chatId: string, text: string) => {
    const res = await t.console(owner.token, 'POST', `/chat/messages/${chatId}/`, { body: { text } });
    assert.equal(res.status, 201, res.text);
  };
  const hooks = () => receiver.requests.filter((request) => request.url === hook).length;
  return { owner, baseId: base.body.id, channelId, ask, answer, hooks };
}

async function finished(token: string, id: string): Promise<Replay> {
  return eventually(async () => {
    const res = await t.console<Replay>(token, 'GET', `/replays/${id}`);
    assert.equal(res.status, 200, res.text);
    return res.body.status === 'done' ? res.body : undefined;
  }, 60_000);
}

async function itemsOf(token: string, id: string, query: Record<string, string> = {}): Promise<ReplayItem[]> {
  const res = await t.console<{ items: ReplayItem[]; nextCursor: string | null }>(token, 'GET', `/replays/${id}/items`, { query: { limit: '500', ...query } });
  assert.equal(res.status, 200, res.text);
  return res.body.items;
}

async function upload(token: string, fields: Record<string, string>, file?: { name: string; bytes: string | Buffer; type?: string }) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name);
  const res = await fetch(`${t.url}/console/v1/replays/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await res.text();
  return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as { id: string; status: string; total: number; message?: string } };
}

describe('replay', { concurrency: true }, () => {
  test('a history replay answers past questions as the channel is configured now, sends nothing, and counts marks', async () => {
    // The agent is switched off in the channel (its switches do not matter to a replay): only the team replied.
    const s = await setUp({ disableAgentResponses: true, handoffAfterFallbacks: 2 });
    const conversations: [string, string, string | null][] = [
      ['c1', 'How long does shipping take?', 'Shipping takes 3 to 5 business days.'],
      ['c2', 'Do you ship abroad?', 'Only within Germany for now, sorry.'],
      ['c3', 'What is the meaning of life?', 'Forty-two.'],
      ['c4', 'I want to talk to a person', 'Hi, I am here. How can I help?'],
      ['c5', 'how long and how much is shipping', 'Shipping takes 3 to 5 business days.'],
      ['c6', 'Is anyone there?', null],
    ];
    const chatIds: string[] = [];
    for (const [external, question, reply] of conversations) {
      const chatId = await s.ask(external, question);
      chatIds.push(chatId);
      if (reply) await s.answer(chatId, reply);
    }
    // The team's replies reached the webhook; from here on nothing may.
    await eventually(async () => (s.hooks() >= 5 ? true : undefined), 15_000);
    const messagesBefore = await Promise.all(chatIds.map(async (id) => (await t.console<{ messages: unknown[] }>(s.owner.token, 'GET', `/chat/messages/${id}/`)).body.messages.length));
    const hooksBefore = s.hooks();

    const started = await t.console<{ id: string; status: string; total: number }>(s.owner.token, 'POST', '/replays/', { body: { channelId: s.channelId, source: 'history' } });
    assert.equal(started.status, 202, started.text);
    assert.deepEqual({ ...started.body, id: undefined }, { id: undefined, status: 'running', total: 5 });
    const replay = await finished(s.owner.token, started.body.id);
    assert.deepEqual(replay, {
      id: started.body.id,
      channelId: s.channelId,
      status: 'done',
      total: 5,
      done: 5,
      summary: {
        answered: 2,
        agreesWithTeam: 1,
        differs: 1,
        clarified: 1,
        handedOff: 1,
        fellBack: 1,
        markedRight: 0,
        markedWrong: 0,
        estimatedPrecision: null,
        unansweredMarks: { markedRight: 0, markedWrong: 0 },
      },
    });
    const items = await itemsOf(s.owner.token, started.body.id);
    assert.deepEqual(
      items.map((i) => [i.question, i.verdict, i.mark]),
      conversations.slice(0, 5).map(([, q], n) => [q, ['agrees', 'differs', 'fell_back', 'handed_off', 'clarified'][n], null]),
    );
    assert.equal(items[0]?.agentReply, 'Shipping takes 3 to 5 business days.');
    assert.equal(items[1]?.teamAnswer, 'Only within Germany for now, sorry.');
    assert.equal(items[1]?.agentReply, 'We ship to every country of the European Union.');
    assert.match(items[4]?.agentReply ?? '', /^Did you mean one of these\?\n1\. /);
    assert.deepEqual((await itemsOf(s.owner.token, started.body.id, { verdict: 'differs' })).map((i) => i.question), ['Do you ship abroad?']);
    // Paging in order.
    const first = await t.console<{ items: ReplayItem[]; nextCursor: string | null }>(s.owner.token, 'GET', `/replays/${started.body.id}/items`, { query: { limit: '2' } });
    assert.deepEqual(first.body.items.map((i) => i.question), ['How long does shipping take?', 'Do you ship abroad?']);
    const second = await t.console<{ items: ReplayItem[]; nextCursor: string | null }>(s.owner.token, 'GET', `/replays/${started.body.id}/items`, {
      query: { limit: '2', cursor: first.body.nextCursor ?? '' },
    });
    assert.deepEqual(second.body.items.map((i) => i.question), ['What is the meaning of life?', 'I want to talk to a person']);

    // Marks.
    const right = await t.console<ReplayItem>(s.owner.token, 'PUT', `/replays/${started.body.id}/items/${items[0]?.id}`, { body: { mark: 'right' } });
    assert.equal(right.status, 200, right.text);
    assert.equal(right.body.mark, 'right');
    for (const item of [items[1], items[2]]) {
      const res = await t.console(s.owner.token, 'PUT', `/replays/${started.body.id}/items/${item?.id}`, { body: { mark: 'wrong' } });
      assert.equal(res.status, 200, res.text);
    }
    // The fallback's `Wrong` (items[2]) is counted apart: estimatedPrecision is of answered items only.
    let summary = (await t.console<Replay>(s.owner.token, 'GET', `/replays/${started.body.id}`)).body.summary;
    assert.deepEqual([summary.markedRight, summary.markedWrong, summary.estimatedPrecision, summary.unansweredMarks], [1, 1, 0.5, { markedRight: 0, markedWrong: 1 }]);
    await t.console(s.owner.token, 'PUT', `/replays/${started.body.id}/items/${items[1]?.id}`, { body: { mark: null } });
    summary = (await t.console<Replay>(s.owner.token, 'GET', `/replays/${started.body.id}`)).body.summary;
    assert.deepEqual([summary.markedRight, summary.markedWrong, summary.estimatedPrecision, summary.unansweredMarks], [1, 0, 1, { markedRight: 0, markedWrong: 1 }]);
    for (const body of [{ mark: 'maybe' }, { mark: 'right', extra: 1 }, {}]) {
      const res: { status: number; text: string } = await t.console(s.owner.token, 'PUT', `/replays/${started.body.id}/items/${items[0]?.id}`, { body });
      assert.equal(res.status, 400, res.text);
    }

    // Nothing was sent or stored in any chat.
    const messagesAfter = await Promise.all(chatIds.map(async (id) => (await t.console<{ messages: unknown[] }>(s.owner.token, 'GET', `/chat/messages/${id}/`)).body.messages.length));
    assert.deepEqual(messagesAfter, messagesBefore);
    assert.equal(s.hooks(), hooksBefore);
  });

  test("history pairing: the team's answer comes before the customer's next message; the agent's own answer stands in when it alone answered; marks on a clarification are apart", async () => {
    // The agent answers in these chats (fallbacks never hand off, clarifications offered).
    const s = await setUp({ handoffAfterFallbacks: 0 });
    /** The customer's message, then the agent's reply to it (`replies` assistant messages in the chat by then). */
    const askAndWait = async (external: string, text: string, replies: number) => {
      const chatId = await s.ask(external, text);
      await eventually(async () => {
        const res = await t.console<{ messages: { role: string }[] }>(s.owner.token, 'GET', `/chat/messages/${chatId}/`);
        return res.body.messages.filter((m) => m.role === 'assistant').length >= replies ? true : undefined;
      }, 15_000);
      return chatId;
    };
    // The customer writes twice before the member replies: the member's reply came after the first question's next
    // message, so it is the second question's answer only; the first (the agent fell back) is left out.
    await askAndWait('p1', 'What is the meaning of life?', 1);
    const p1 = await askAndWait('p1', 'Do you sell hats?', 2);
    await s.answer(p1, 'Yes, we sell hats in three sizes.');
    // Answered by the agent alone: replayed against the agent's own past reply.
    await askAndWait('p2', 'How long does shipping take?', 1);
    // The agent answered and a member replied too: the member's reply is the team's answer.
    const p3 = await askAndWait('p3', 'Which payment methods do you accept?', 1);
    await s.answer(p3, 'Please ask our sales team about that.');
    // A clarification, then the member's reply.
    const p4 = await askAndWait('p4', 'how long and how much is shipping', 1);
    await s.answer(p4, 'Shipping takes 3 to 5 business days and is free above 50 euros.');

    const started = await t.console<{ id: string; total: number }>(s.owner.token, 'POST', '/replays/', { body: { channelId: s.channelId, source: 'history' } });
    assert.equal(started.status, 202, started.text);
    assert.equal(started.body.total, 4);
    await finished(s.owner.token, started.body.id);
    const items = await itemsOf(s.owner.token, started.body.id);
    assert.deepEqual(
      items.map((i) => [i.question, i.teamAnswer, i.answeredBy, i.verdict]),
      [
        ['Do you sell hats?', 'Yes, we sell hats in three sizes.', 'team', 'fell_back'],
        ['How long does shipping take?', 'Shipping takes 3 to 5 business days.', 'agent', 'agrees'],
        ['Which payment methods do you accept?', 'Please ask our sales team about that.', 'team', 'differs'],
        ['how long and how much is shipping', 'Shipping takes 3 to 5 business days and is free above 50 euros.', 'team', 'clarified'],
      ],
    );
    const mark = async (index: number, value: 'right' | 'wrong') => {
      const res = await t.console<ReplayItem>(s.owner.token, 'PUT', `/replays/${started.body.id}/items/${items[index]?.id}`, { body: { mark: value } });
      assert.equal(res.status, 200, res.text);
    };
    const summary = async () => (await t.console<Replay>(s.owner.token, 'GET', `/replays/${started.body.id}`)).body.summary;
    // `Right` on the clarification and `Wrong` on the fallback say nothing of the answers' precision.
    await mark(3, 'right');
    await mark(0, 'wrong');
    let now = await summary();
    assert.deepEqual([now.markedRight, now.markedWrong, now.estimatedPrecision, now.unansweredMarks], [0, 0, null, { markedRight: 1, markedWrong: 1 }]);
    await mark(1, 'right');
    await mark(2, 'wrong');
    now = await summary();
    assert.deepEqual(
      { ...now, unansweredMarks: now.unansweredMarks },
      {
        answered: 2,
        agreesWithTeam: 1,
        differs: 1,
        clarified: 1,
        handedOff: 0,
        fellBack: 1,
        markedRight: 1,
        markedWrong: 1,
        estimatedPrecision: 0.5,
        unansweredMarks: { markedRight: 1, markedWrong: 1 },
      },
    );
  });

  test('uploads: CSV (RFC 4180) and JSON rows are replayed; malformed files are 400 with a sentence', async () => {
    const s = await setUp();
    const csv = '\uFEFFquestion,answer,conversationId\r\n"How long does shipping take?","Shipping takes 3 to 5 business days.",a1\r\n"Do you ship abroad, to Norway?","No, sorry:\n""EU only"".",a2\n';
    const fromCsv = await upload(s.owner.token, { channelId: s.channelId }, { name: 'past.csv', bytes: csv, type: 'text/csv' });
    assert.equal(fromCsv.status, 202, fromCsv.text);
    assert.deepEqual([fromCsv.body.status, fromCsv.body.total], ['running', 2]);
    await finished(s.owner.token, fromCsv.body.id);
    const csvItems = await itemsOf(s.owner.token, fromCsv.body.id);
    assert.deepEqual(
      csvItems.map((i) => [i.question, i.teamAnswer, i.verdict]),
      [
        ['How long does shipping take?', 'Shipping takes 3 to 5 business days.', 'agrees'],
        ['Do you ship abroad, to Norway?', 'No, sorry:\n"EU only".', csvItems[1]?.verdict],
      ],
    );

    const json = JSON.stringify([{ question: 'Which payment methods do you accept?', answer: 'Cards, PayPal and bank transfer.' }, { question: 'How do I return an item?', answer: 'Call us.' }]);
    const fromJson = await upload(s.owner.token, { channelId: s.channelId }, { name: 'past.json', bytes: json, type: 'application/json' });
    assert.equal(fromJson.status, 202, fromJson.text);
    const done = await finished(s.owner.token, fromJson.body.id);
    assert.deepEqual([done.total, done.summary.agreesWithTeam, done.summary.differs], [2, 1, 1]);

    const many = `question,answer\n${'q,a\n'.repeat(20_001)}`;
    const cases: [string, string | Buffer, string][] = [
      ['a.csv', 'q,a\nHow?,So.\n', 'file: the CSV header must be question,answer or question,answer,conversationId (found: q,a)'],
      ['a.csv', 'question,answer\nHow long?,Days.\n,Orphan answer\n', 'file: row 2 has no question'],
      ['a.json', '[{"question":"How?","answer":"So."},{"answer":"So."}]', 'file: row 2 has no question'],
      ['a.csv', many, 'file: at most 20,000 rows (found 20,001)'],
      ['a.json', '[{"question": "How?"', 'file: not valid JSON: send a JSON array of { question, answer }, or a CSV with the header question,answer'],
      ['a.json', '{"question":"How?","answer":"So."}', 'file: the JSON must be an array of { question, answer }'],
      ['a.csv', '', 'file: the file is empty'],
      ['a.csv', '\uFEFF  \n', 'file: the file is empty'],
      ['a.bin', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]), 'file: not a CSV or JSON file'],
      ['a.csv', 'question,answer\n"How?,So.\n', 'file: CSV record 2: a quoted field is not closed'],
      ['a.csv', 'question,answer\nHow?,So.,extra\n', 'file: row 1 has 3 fields; the header has 2'],
      ['a.csv', 'question,answer\n', 'file: the file has no rows'],
    ];
    for (const [name, bytes, message] of cases) {
      const res = await upload(s.owner.token, { channelId: s.channelId }, { name, bytes });
      assert.equal(res.status, 400, `${name}: ${res.text}`);
      assert.equal(res.body.message, message, name);
    }
    const noFile = await upload(s.owner.token, { channelId: s.channelId });
    assert.deepEqual([noFile.status, noFile.body.message], [400, 'source: send "history", or a CSV or JSON file in the multipart/form-data field "file"']);
    const both = await upload(s.owner.token, { channelId: s.channelId, source: 'history' }, { name: 'a.csv', bytes: 'question,answer\nHow?,So.\n' });
    assert.deepEqual([both.status, both.body.message], [400, 'source and days go with "history" only: an uploaded file is the source']);
  });

  test('validation, roles and isolation on every route', async () => {
    const s = await setUp();
    const other = await setUp();
    const started = await t.console<{ id: string }>(s.owner.token, 'POST', '/replays/', { body: { channelId: s.channelId, source: 'history', days: 7 } });
    assert.equal(started.status, 202, started.text);
    for (const body of [{ channelId: s.channelId, source: 'history', days: 0 }, { channelId: s.channelId, source: 'history', days: 366 }, { channelId: s.channelId, source: 'file' }, { channelId: s.channelId, source: 'history', extra: true }, { source: 'history' }]) {
      const res = await t.console(s.owner.token, 'POST', '/replays/', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal((await t.console(s.owner.token, 'GET', `/replays/${started.body.id}/items`, { query: { color: 'red' } })).status, 400);
    assert.equal((await t.console(s.owner.token, 'GET', `/replays/${started.body.id}/items`, { query: { verdict: 'maybe' } })).status, 400);
    assert.equal((await t.console(s.owner.token, 'GET', `/replays/${started.body.id}/items`, { query: { cursor: 'x' } })).status, 400);
    assert.equal((await t.console(s.owner.token, 'GET', `/knowledge-bases/${s.baseId}/gaps`, { query: { days: '0' } })).status, 400);
    assert.equal((await t.console(s.owner.token, 'GET', `/knowledge-bases/${s.baseId}/gaps`, { query: { when: 'today' } })).status, 400);

    // Another account sees none of it, and cannot replay this account's channel.
    const foreign = await t.console<{ message: string }>(other.owner.token, 'POST', '/replays/', { body: { channelId: s.channelId, source: 'history' } });
    assert.deepEqual([foreign.status, foreign.body.message], [404, 'Channel not found']);
    assert.equal((await t.console(other.owner.token, 'GET', `/replays/${started.body.id}`)).status, 404);
    assert.equal((await t.console(other.owner.token, 'GET', `/replays/${started.body.id}/items`)).status, 404);
    const anyItem = (await itemsOf(s.owner.token, started.body.id))[0];
    const itemId = anyItem?.id ?? '00000000-0000-7000-8000-000000000000';
    assert.equal((await t.console(other.owner.token, 'PUT', `/replays/${started.body.id}/items/${itemId}`, { body: { mark: 'right' } })).status, 404);
    assert.equal((await t.console(other.owner.token, 'GET', `/knowledge-bases/${s.baseId}/gaps`)).status, 404);
    assert.equal((await t.console(undefined, 'GET', `/replays/${started.body.id}`)).status, 401);

    // An agent-role member reads but may not start a replay; an admin may.
    const agent = await addMember(s.owner, 'agent');
    const refused = await t.console<{ message: string }>(agent, 'POST', '/replays/', { body: { channelId: s.channelId, source: 'history' } });
    assert.deepEqual([refused.status, refused.body.message], [403, 'Forbidden for your role']);
    assert.equal((await t.console(agent, 'GET', `/replays/${started.body.id}`)).status, 200);
    assert.equal((await t.console(agent, 'GET', `/replays/${started.body.id}/items`)).status, 200);
    assert.equal((await t.console(agent, 'GET', `/knowledge-bases/${s.baseId}/gaps`)).status, 200);
    const admin = await addMember(s.owner, 'admin');
    assert.equal((await t.console(admin, 'POST', '/replays/', { body: { channelId: s.channelId, source: 'history' } })).status, 202);
  });

  test('knowledge gaps: unanswered questions grouped by meaning, biggest first, with the team replies', async () => {
    const s = await setUp({ handoffAfterFallbacks: 0, clarifyChoices: 0 });
    const asked: [string, string, string | null][] = [
      ['g1', 'Can I pay with bitcoin?', 'No, we do not take bitcoin.'],
      ['g2', 'can i pay with bitcoin', 'No, we do not take bitcoin.'],
      ['g3', 'Can I pay with bitcoin please?', 'Sorry, no crypto.'],
      ['g4', 'Do you have a shop in Berlin?', 'Yes, on Main Street 5.'],
      ['g5', 'How long does shipping take?', null],
    ];
    for (const [external, question, reply] of asked) {
      const chatId = await s.ask(external, question);
      // The agent's reply (its fallback, or the answer) comes before the team's.
      await eventually(async () => {
        const res = await t.console<{ messages: { role: string }[] }>(s.owner.token, 'GET', `/chat/messages/${chatId}/`);
        return res.body.messages.some((m) => m.role === 'assistant') ? true : undefined;
      }, 15_000);
      if (reply) await s.answer(chatId, reply);
    }
    const res = await t.console<{ gaps: KnowledgeGap[] }>(s.owner.token, 'GET', `/knowledge-bases/${s.baseId}/gaps`, { query: { days: '30' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.gaps.map((g) => ({ ...g, id: typeof g.id })),
      [
        { id: 'string', size: 3, examples: ['Can I pay with bitcoin?', 'can i pay with bitcoin', 'Can I pay with bitcoin please?'], teamAnswers: ['No, we do not take bitcoin.', 'Sorry, no crypto.'] },
        { id: 'string', size: 1, examples: ['Do you have a shop in Berlin?'], teamAnswers: ['Yes, on Main Street 5.'] },
      ],
    );
    const again = await t.console<{ gaps: KnowledgeGap[] }>(s.owner.token, 'GET', `/knowledge-bases/${s.baseId}/gaps`);
    assert.deepEqual(again.body.gaps.map((g) => g.id), res.body.gaps.map((g) => g.id));
  });
});
