// The reports' routes over HTTP (docs/architecture.md, Outcomes and reports) on conversations seeded with the store's
// bulk insert (the one the benchmark uses): exact summary figures, percentiles within their histogram's 4.5 %, the ledger's pages and filters,
// the CSV (RFC 4180 quoting, formula guard), tenant isolation, roles and the 400s of the queries.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LedgerConversation, ReportSummary } from '@parley/contracts';
import { sql } from 'drizzle-orm';
import { createConversationsStore, type ConversationSeed } from '../src/conversations/conversations-store.ts';
import { queryRows } from '../src/db/client.ts';
import { newId } from '../src/lib/ids.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

interface Ledger {
  conversations: LedgerConversation[];
  nextCursor: string | null;
}
type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;

const at = (iso: string) => new Date(iso);
/** A percentile: read from the rollup's histograms, within 4.5 % of percentile_cont's figure (half a 9 % bucket). */
const close = (actual: number | null, expected: number) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= expected * 0.045, `${actual} ≈ ${expected}`);

describe('reports', () => {
  let t: TestApp;
  let owner: User;
  let other: User;
  let agentToken: string;
  let memberId: string;
  let channelId: string;
  let otherChannelId: string;
  const chats: Record<string, string> = {};

  /** A chat of `channel` named `name`, made by a customer message (its own conversation starts today, outside the windows). */
  async function chat(user: User, channel: string, externalChatId: string, name: string): Promise<string> {
    const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: user.key },
      body: { channel: 'custom', channelId: channel, externalChatId, role: 'user', text: 'hello', senderName: name },
    });
    assert.equal(res.status, 201, res.text);
    const list = await t.console<{ chats: { id: string; chatId: string }[] }>(user.token, 'GET', '/chat/all-chats/', { query: { channelId: channel } });
    const found = list.body.chats.find((c) => c.chatId === externalChatId);
    assert.ok(found);
    return found.id;
  }

  async function connect(user: User, name: string): Promise<string> {
    const res = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name, disableAgentResponses: true } });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  }

  before(async () => {
    t = await startTestApp();
    owner = await t.createConsoleUser();
    other = await t.createConsoleUser();
    const email = `reports-agent-${process.pid}-${Date.now()}@example.com`;
    const invite = await t.console<{ id: string; inviteUrl: string }>(owner.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
      body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: 'Bea', password: PASSWORD },
    });
    assert.equal(accepted.status, 200, accepted.text);
    agentToken = accepted.body.token;
    memberId = invite.body.id;
    channelId = await connect(owner, 'Web');
    otherChannelId = await connect(other, 'Theirs');
    chats.ann = await chat(owner, channelId, 'ann', 'Ann');
    chats.formula = await chat(owner, channelId, 'formula', '=HYPERLINK("http://evil.example","x"), "quoted"\nnext');
    chats.theirs = await chat(other, otherChannelId, 'theirs', 'Theirs');
    // The formula chat's own conversation (today) ends: the seeded open one is its only open one.
    const done = await t.console(owner.token, 'POST', `/chat/status/${chats.formula}/`, { body: { status: 'done' } });
    assert.equal(done.status, 200, done.text);

    // Ten conversations of `ann` on 2026-01-10 … 2026-01-14 (two a day), first agent responses 1 … 10 s.
    const seeds: ConversationSeed[] = [];
    const outcomes = ['resolved_by_agent', 'resolved_by_agent', 'resolved_by_agent', 'resolved_by_agent', 'resolved_by_team', 'resolved_by_team', 'handed_off', 'unanswered', 'resolved_by_agent', null] as const;
    outcomes.forEach((outcome, i) => {
      const startedAt = at(`2026-01-${String(10 + Math.floor(i / 2)).padStart(2, '0')}T${i % 2 === 0 ? '09' : '15'}:00:00.000Z`);
      const team = outcome === 'resolved_by_team';
      seeds.push({
        id: newId(),
        accountId: owner.accountId,
        chatId: outcome === null ? chats.formula as string : chats.ann as string,
        channelId,
        startedAt,
        endedAt: outcome === null ? null : new Date(startedAt.getTime() + (i + 1) * 60_000),
        outcome,
        confirmed: i === 0,
        durable: i < 2 ? true : i === 2 ? false : null,
        messages: 2 + i,
        answeredAfterChoice: i === 3 ? 1 : 0,
        handedOffAt: team || outcome === 'handed_off' ? new Date(startedAt.getTime() + 1000) : null,
        handoffReason: team || outcome === 'handed_off' ? (i === 4 ? 'model' : 'customer_request') : null,
        memberIds: team ? [memberId] : [],
        firstAgentResponseSeconds: i + 1,
        firstTeamResponseSeconds: team ? (i === 4 ? 20 : 40) : null,
        assigneeId: team ? memberId : null,
        csatRating: i === 0 ? 5 : i === 1 ? 2 : i === 4 ? 4 : null,
      });
    });
    // Another account's conversation in the same window.
    seeds.push({ id: newId(), accountId: other.accountId, chatId: chats.theirs as string, channelId: otherChannelId, startedAt: at('2026-01-11T10:00:00.000Z'), endedAt: at('2026-01-11T10:05:00.000Z'), outcome: 'resolved_by_agent', messages: 2 });
    await createConversationsStore(t.database.db).insertMany(seeds);
  });
  after(async () => {
    await t.close();
  });

  const window = { from: '2026-01-10', to: '2026-01-14' };
  const summary = async (query: Record<string, string> = {}, token = owner.token) =>
    t.console<ReportSummary>(token, 'GET', '/reports/summary', { query: { ...window, ...query } });
  const ledger = async (query: Record<string, string> = {}, token = owner.token) =>
    t.console<Ledger>(token, 'GET', '/reports/conversations', { query: { ...window, ...query } });

  test('the summary: exact figures, rates of ended conversations, percentiles within 4.5 %, CSAT, per day, channel and member', async () => {
    const res = await summary();
    assert.equal(res.status, 200, res.text);
    const s = res.body;
    assert.equal(s.conversations, 10);
    assert.deepEqual(s.outcomes, {
      resolvedByAgent: 5,
      resolvedByAgentConfirmed: 1,
      resolvedByAgentDurable: 2,
      resolvedByTeam: 2,
      handedOff: 1,
      unanswered: 1,
      open: 1,
    });
    assert.equal(s.answeredAfterChoice, 1);
    assert.equal(s.agentResolutionRate, 5 / 9);
    assert.equal(s.handoffRate, 3 / 9);
    assert.deepEqual(s.handoffReasons, { model: 1, customer_request: 2, fallbacks: 0 });
    close(s.firstResponseSeconds.agent.p50, 5.5);
    close(s.firstResponseSeconds.agent.p90, 9.1);
    close(s.firstResponseSeconds.team.p50, 30);
    close(s.firstResponseSeconds.team.p90, 38);
    // Resolution: ended conversations i = 0 … 8 lasted (i + 1) minutes.
    close(s.resolutionSeconds.p50, 300);
    close(s.resolutionSeconds.p90, 492);
    assert.deepEqual(s.csat, { agent: { count: 2, average: 3.5 }, team: { count: 1, average: 4 } });
    assert.deepEqual(s.perDay, [
      { date: '2026-01-10', conversations: 2, resolvedByAgent: 2, handedOff: 0, resolvedByTeam: 0 },
      { date: '2026-01-11', conversations: 2, resolvedByAgent: 2, handedOff: 0, resolvedByTeam: 0 },
      { date: '2026-01-12', conversations: 2, resolvedByAgent: 0, handedOff: 0, resolvedByTeam: 2 },
      { date: '2026-01-13', conversations: 2, resolvedByAgent: 0, handedOff: 1, resolvedByTeam: 0 },
      { date: '2026-01-14', conversations: 2, resolvedByAgent: 1, handedOff: 0, resolvedByTeam: 0 },
    ]);
    assert.deepEqual(s.perChannel, [{ channelId, name: 'Web', conversations: 10, resolvedByAgent: 5 }]);
    assert.equal(s.perMember.length, 1);
    assert.equal(s.perMember[0]?.memberId, memberId);
    assert.equal(s.perMember[0]?.name, 'Bea');
    assert.equal(s.perMember[0]?.conversations, 2);
    close(s.perMember[0]?.firstResponseP50 ?? null, 30);
    assert.equal(s.perMember[0]?.csatAverage, 4);

    // An empty window: counts 0, rates, percentiles and averages null, every day listed.
    const empty = (await summary({ from: '2025-06-01', to: '2025-06-03' })).body;
    assert.equal(empty.conversations, 0);
    assert.equal(empty.agentResolutionRate, null);
    assert.equal(empty.handoffRate, null);
    assert.deepEqual(empty.firstResponseSeconds, { agent: { p50: null, p90: null }, team: { p50: null, p90: null } });
    assert.deepEqual(empty.resolutionSeconds, { p50: null, p90: null });
    assert.deepEqual(empty.csat, { agent: { count: 0, average: null }, team: { count: 0, average: null } });
    assert.equal(empty.perDay.length, 3);
    assert.deepEqual(empty.perChannel, []);
    assert.deepEqual(empty.perMember, []);

    // Filters: a day, the member, the channel.
    assert.equal((await summary({ from: '2026-01-12', to: '2026-01-12' })).body.conversations, 2);
    const member = (await summary({ memberId })).body;
    assert.equal(member.conversations, 2);
    assert.equal(member.outcomes.resolvedByTeam, 2);
    assert.equal((await summary({ channelId })).body.conversations, 10);
  });

  test('percentiles over a wide spread (0.1 s to 3 days) are within 4.5 % of percentile_cont on the conversations', async () => {
    const user = await t.createConsoleUser();
    const channel = await connect(user, 'Spread');
    const spreadChat = await chat(user, channel, 'spread', 'Spread');
    const store = createConversationsStore(t.database.db);
    const seeds: ConversationSeed[] = [];
    for (let i = 0; i < 400; i += 1) {
      const startedAt = at(`2026-02-0${1 + (i % 5)}T10:00:00.000Z`);
      // Log-spread, with runs of equal values and a few under half a second.
      const agent = 0.1 * 2.6e6 ** (((i * 7919) % 400) / 400);
      seeds.push({
        id: newId(), accountId: user.accountId, chatId: spreadChat, channelId: channel, startedAt,
        endedAt: new Date(startedAt.getTime() + Math.round(agent * 3) * 1000 + 1000), outcome: 'resolved_by_agent', messages: 2,
        firstAgentResponseSeconds: i % 10 === 0 ? 42 : agent,
      });
    }
    await store.insertMany(seeds);
    const res = await summary({ from: '2026-02-01', to: '2026-02-05' }, user.token);
    assert.equal(res.status, 200, res.text);
    const [exact] = await queryRows<{ a50: number; a90: number; r50: number; r90: number }>(
      t.database.db,
      sql`select percentile_cont(0.5) within group (order by first_agent_response_seconds) as a50,
                 percentile_cont(0.9) within group (order by first_agent_response_seconds) as a90,
                 percentile_cont(0.5) within group (order by extract(epoch from ended_at - started_at)) as r50,
                 percentile_cont(0.9) within group (order by extract(epoch from ended_at - started_at)) as r90
          from conversations where account_id = ${user.accountId} and ended_at is not null`,
    );
    assert.ok(exact);
    close(res.body.firstResponseSeconds.agent.p50, Number(exact.a50));
    close(res.body.firstResponseSeconds.agent.p90, Number(exact.a90));
    close(res.body.resolutionSeconds.p50, Number(exact.r50));
    close(res.body.resolutionSeconds.p90, Number(exact.r90));
  });

  test('tenant isolation: another account sees only its own; its ids give empty results', async () => {
    const theirs = (await summary({}, other.token)).body;
    assert.equal(theirs.conversations, 1);
    assert.deepEqual(theirs.perChannel, [{ channelId: otherChannelId, name: 'Theirs', conversations: 1, resolvedByAgent: 1 }]);
    assert.equal((await summary({ channelId: otherChannelId })).body.conversations, 0);
    assert.equal((await summary({ memberId }, other.token)).body.conversations, 0);
    assert.deepEqual((await ledger({ channelId: otherChannelId })).body, { conversations: [], nextCursor: null });
    const list = (await ledger({}, other.token)).body.conversations;
    assert.deepEqual(list.map((c) => c.chatId), [chats.theirs]);
  });

  test('the ledger: newest first, pages by cursor, filters, the item shape', async () => {
    const all: LedgerConversation[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Awaited<ReturnType<typeof ledger>> = await ledger({ limit: '3', ...(cursor ? { cursor } : {}) });
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.conversations.length <= 3);
      all.push(...res.body.conversations);
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor);
    assert.equal(pages, 4);
    assert.equal(all.length, 10);
    const starts = all.map((c) => c.startedAt);
    assert.deepEqual(starts, [...starts].sort().reverse());
    assert.equal(new Set(all.map((c) => c.id)).size, 10);

    const first = all.find((c) => c.csat === 5);
    assert.ok(first);
    assert.deepEqual(Object.keys(first).sort(), [
      'assignee', 'channelId', 'chatId', 'confirmed', 'csat', 'customerName', 'durable', 'endedAt', 'firstAgentResponseSeconds',
      'endsAt', 'firstTeamResponseSeconds', 'handoffReason', 'id', 'messages', 'outcome', 'startedAt', 'state',
    ].sort());
    assert.equal(first.customerName, 'Ann');
    assert.equal(first.startedAt, '2026-01-10T09:00:00.000Z');
    assert.equal(first.endedAt, '2026-01-10T09:01:00.000Z');
    assert.equal(first.outcome, 'resolved_by_agent');
    assert.equal(first.confirmed, true);
    assert.equal(first.durable, true);
    assert.equal(first.messages, 2);
    const team = all.filter((c) => c.outcome === 'resolved_by_team');
    assert.deepEqual(team.map((c) => c.assignee), [{ id: memberId, name: 'Bea' }, { id: memberId, name: 'Bea' }]);
    const open = (await ledger({ outcome: 'open' })).body.conversations;
    assert.equal(open.length, 1);
    assert.equal(open[0]?.endedAt, null);
    // Open: what has happened so far and when quiet time ends it (the seed's last customer message is its start).
    assert.equal(open[0]?.state, 'new');
    assert.equal(open[0]?.endsAt, new Date(Date.parse(open[0]?.startedAt ?? '') + 1440 * 60_000).toISOString());
    assert.deepEqual([first.state, first.endsAt], [null, null], 'both null once ended');
    assert.equal((await ledger({ outcome: 'handed_off' })).body.conversations.length, 1);
    assert.equal((await ledger({ memberId })).body.conversations.length, 2);
    // `only`: the conversations of each figure of the summary, as many as the figure counts.
    const only = async (figure: string, extra: Record<string, string> = {}) => {
      const res = await ledger({ only: figure, limit: '200', ...extra });
      assert.equal(res.status, 200, res.text);
      return res.body.conversations;
    };
    const counts: Record<string, number> = {
      confirmed: 1, durable: 2, handed_off: 3, model: 1, customer_request: 2, fallbacks: 0, rated: 3, agent_response: 10,
      team_response: 2, ended: 9, after_choice: 1,
    };
    for (const [figure, count] of Object.entries(counts)) assert.equal((await only(figure)).length, count, figure);
    assert.deepEqual((await only('rated', { outcome: 'resolved_by_agent' })).map((c) => c.csat).sort(), [2, 5]);
    assert.ok((await only('durable')).every((c) => c.durable === true));
    assert.equal((await ledger({ limit: '200' })).body.conversations.length, 10);
    assert.equal((await ledger({}, agentToken)).status, 200, 'an agent reads the reports');
  });

  test('the CSV: a header row, one row per conversation, RFC 4180 quoting, formulas guarded', async () => {
    const res = await t.request('GET', '/console/v1/reports/conversations.csv', {
      headers: { authorization: `Bearer ${agentToken}` },
      query: window,
    });
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    const lines = res.text.split('\r\n');
    assert.equal(lines.at(-1), '');
    assert.equal(
      lines[0],
      'id,chatId,channelId,customerName,startedAt,endedAt,outcome,confirmed,durable,handoffReason,firstAgentResponseSeconds,firstTeamResponseSeconds,assignee,csat,messages,state,endsAt',
    );
    // The open conversation's customer name holds a formula, quotes, a comma and a line break.
    assert.ok(res.text.includes(`,"'=HYPERLINK(""http://evil.example"",""x""), ""quoted""\nnext",2026-01-14T15:00:00.000Z,,open,false,,,10,,,,11,new,2026-01-15T15:00:00.000Z\r\n`), res.text);
    const ann = lines.find((line) => line.includes(',Ann,2026-01-10T09:00:00.000Z,'));
    assert.ok(ann);
    assert.ok(ann.endsWith(',Ann,2026-01-10T09:00:00.000Z,2026-01-10T09:01:00.000Z,resolved_by_agent,true,true,,1,,,5,2,,'), ann);
    // The header, 10 rows and the empty tail (the quoted line break inside a cell is a bare LF, no row end).
    assert.equal(lines.length, 12);
    const theirs = await t.request('GET', '/console/v1/reports/conversations.csv', { headers: { authorization: `Bearer ${other.token}` }, query: window });
    assert.equal(theirs.text.split('\r\n').length, 3);
  });

  test('validation: dates, order, range, filters, cursor, unknown parameters; authentication', async () => {
    const cases: [Record<string, string>, RegExp | string][] = [
      [{ from: '2026-02-30', to: '2026-03-01' }, '"from" is not a date: use YYYY-MM-DD'],
      [{ from: '2026-01-10', to: '2026-1-11' }, /to/i],
      [{ from: '2026-01-10', to: '2026-01-09' }, '"to" must be the same day as "from" or after it'],
      [{ from: '2025-01-01', to: '2026-01-02' }, 'The report covers at most 366 days: choose a shorter range'],
      [{ ...window, memberId: 'not-a-uuid' }, /member id/i],
      [{ ...window, unknown: '1' }, /unknown|additional/i],
    ];
    for (const [query, message] of cases) {
      for (const path of ['/reports/summary', '/reports/conversations', '/reports/conversations.csv']) {
        const res = await t.console<{ message: string | string[]; statusCode: number }>(owner.token, 'GET', path, { query });
        assert.equal(res.status, 400, `${path} ${JSON.stringify(query)}: ${res.text}`);
        const text = Array.isArray(res.body.message) ? res.body.message.join(' ') : res.body.message;
        if (typeof message === 'string') assert.equal(text, message);
        else assert.match(text, message);
      }
    }
    assert.equal((await t.console(owner.token, 'GET', '/reports/summary', { query: { from: '2026-01-10' } })).status, 400);
    assert.equal((await ledger({ outcome: 'resolved' })).status, 400);
    assert.equal((await ledger({ only: 'happy' })).status, 400);
    assert.equal((await ledger({ limit: '201' })).status, 400);
    assert.equal((await ledger({ limit: '0' })).status, 400);
    const badCursor = await ledger({ cursor: 'bm9wZQ' });
    assert.equal(badCursor.status, 400);
    assert.deepEqual(badCursor.body, { message: 'Invalid cursor', statusCode: 400 });
    assert.equal((await summary({}, '')).status, 401);
    // 366 days is allowed.
    assert.equal((await summary({ from: '2025-01-14', to: '2026-01-14' })).status, 200);
  });
});
