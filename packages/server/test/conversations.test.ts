// Conversations and their outcomes from real flows over HTTP (docs/architecture.md, Outcomes and reports): the agent
// answering then quiet time (resolved_by_agent), a handoff then a member's reply (resolved_by_team, counted in the
// handoff rate), a handoff alone (handed_off), a fallback alone and a greeting alone (unanswered), the task marked
// done ending one at once, a new customer message after quiet time starting a second conversation and making the
// first not durable, durable after 7 days, the account setting `resolutionQuietMinutes`, and
// parley_conversations_total; the daily rollup the summary reads equals a recount after all of it. The clock is the app's own, moved forward by the test; the sweep runs every 100 ms.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LedgerConversation, ReportSummary } from '@parley/contracts';
import { sql } from 'drizzle-orm';
import { createConversationsStore } from '../src/conversations/conversations-store.ts';
import { addHistogram, emptyHistogram } from '../src/conversations/duration-histogram.ts';
import { queryRows } from '../src/db/client.ts';
import { eventually } from './support/events.ts';
import { PASSWORD, PUBLIC_URL, startTestApp, type TestApp } from './support/harness.ts';

const METRICS_TOKEN = 'metrics-token-for-conversation-tests';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const ENTRIES = [{ question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' }];

type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;
interface Ledger {
  conversations: LedgerConversation[];
  nextCursor: string | null;
}

describe('conversations and outcomes', () => {
  let t: TestApp;
  let offset = 0;
  const clock = { now: () => new Date(Date.now() + offset) };
  const day = (days: number) => new Date(clock.now().getTime() + days * DAY).toISOString().slice(0, 10);
  // Reports read yesterday to tomorrow (the app's clock's): a test that runs across midnight UTC finds everything.
  const window = () => ({ from: day(-1), to: day(1) });
  before(async () => {
    t = await startTestApp({ clock, conversationSweepMs: 100, metricsToken: METRICS_TOKEN });
  });
  after(async () => {
    await t.close();
  });

  async function setUp(channel: Record<string, unknown> = {}) {
    const owner = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    assert.equal(base.status, 201, base.text);
    for (const entry of ENTRIES) {
      assert.equal((await t.console(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: entry })).status, 201);
    }
    const created = await t.console<{ id: string }>(owner.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Support', knowledgeBaseId: base.body.id, clarifyChoices: 0, handoffAfterFallbacks: 0, ...channel },
    });
    assert.equal(created.status, 201, created.text);
    const channelId = created.body.id;
    const send = async (externalChatId: string, text: string) => {
      const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: owner.key },
        body: { channel: 'custom', channelId, externalChatId, role: 'user', text },
      });
      assert.equal(res.status, 201, res.text);
    };
    const ledger = async (query: Record<string, string> = {}, as: User = owner) => {
      const res = await t.console<Ledger>(as.token, 'GET', '/reports/conversations', { query: { ...window(), ...query } });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const summary = async (query: Record<string, string> = {}) => {
      const res = await t.console<ReportSummary>(owner.token, 'GET', '/reports/summary', { query: { ...window(), ...query } });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const chatIdOf = async (externalChatId: string) => {
      const res = await t.console<{ chats: { id: string; chatId: string }[] }>(owner.token, 'GET', '/chat/all-chats/', { query: { channelId } });
      const chat = res.body.chats.find((c) => c.chatId === externalChatId);
      assert.ok(chat, externalChatId);
      return chat.id;
    };
    /** The conversation of a chat once it has `messages` messages (the agent replied). */
    const conversationOf = (chatId: string, messages: number) =>
      eventually(async () => (await ledger()).conversations.find((c) => c.chatId === chatId && c.messages >= messages), 30_000);
    return { owner, channelId, send, ledger, summary, chatIdOf, conversationOf };
  }

  async function metric(outcome: string): Promise<number> {
    const res = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(res.status, 200);
    const line = res.text.split('\n').find((l) => l.startsWith(`parley_conversations_total{outcome="${outcome}"}`));
    return Number(line?.split(' ').at(-1) ?? 0);
  }

  test('outcomes of real flows, ended by quiet time and by done; exact summary figures; durable', async () => {
    const s = await setUp({ settings: { greeting: 'Hello! Ask me anything.' } });
    const metricsBefore = { agent: await metric('resolved_by_agent'), team: await metric('resolved_by_team') };
    // The setting: an admin changes it (1 minute: the smallest), GET reads it.
    assert.deepEqual((await t.console(s.owner.token, 'GET', '/account/settings/')).body, { resolutionQuietMinutes: 1440, retentionDays: null, requireTwoFactor: false });
    const put = await t.console(s.owner.token, 'PUT', '/account/settings/', { body: { resolutionQuietMinutes: 1 } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body, { resolutionQuietMinutes: 1, retentionDays: null, requireTwoFactor: false });

    // answered: the greeting first (a first message the base does not know), then an answer.
    await s.send('answered', 'Hi there');
    const answeredId = await s.chatIdOf('answered');
    await s.conversationOf(answeredId, 2);
    await s.send('answered', 'How long does shipping take?');
    await s.conversationOf(answeredId, 4);
    // greeted: the greeting alone is no answer.
    await s.send('greeted', 'Hi there');
    const greetedId = await s.chatIdOf('greeted');
    await s.conversationOf(greetedId, 2);
    // team: a handoff, then a member's reply 30 s later.
    await s.send('team', 'Can I talk to a real person please?');
    const teamId = await s.chatIdOf('team');
    await s.conversationOf(teamId, 2);
    offset += 30_000;
    const replied = await t.console(s.owner.token, 'POST', `/chat/messages/${teamId}/`, { body: { text: 'Hello, Ann here.' } });
    assert.equal(replied.status, 201, replied.text);
    // handed: a handoff nobody answers.
    await s.send('handed', 'Can I talk to a real person please?');
    const handedId = await s.chatIdOf('handed');
    await s.conversationOf(handedId, 2);
    // fallback: a first message that is no greeting's (the greeting went), then a fallback only.
    // done: an answer, then the task marked done ends it at once.
    await s.send('done', 'How long does shipping take?');
    const doneId = await s.chatIdOf('done');
    await s.conversationOf(doneId, 2);
    const status = await t.console(s.owner.token, 'POST', `/chat/status/${doneId}/`, { body: { status: 'done' } });
    assert.equal(status.status, 200, status.text);
    const done = (await s.ledger()).conversations.find((c) => c.chatId === doneId);
    assert.equal(done?.outcome, 'resolved_by_agent');
    assert.ok(done.endedAt);
    // Still open: the others (quiet time has not passed).
    assert.equal((await s.ledger({ outcome: 'open' })).conversations.length, 4);

    // Quiet time passes: the sweep ends them.
    offset += 2 * MINUTE;
    await eventually(async () => (await s.ledger({ outcome: 'open' })).conversations.length === 0, 30_000);
    const byChat = new Map((await s.ledger()).conversations.map((c) => [c.chatId, c]));
    assert.equal(byChat.get(answeredId)?.outcome, 'resolved_by_agent');
    assert.equal(byChat.get(answeredId)?.messages, 4);
    assert.equal(byChat.get(greetedId)?.outcome, 'unanswered');
    assert.equal(byChat.get(teamId)?.outcome, 'resolved_by_team');
    assert.equal(byChat.get(teamId)?.handoffReason, 'customer_request');
    assert.ok((byChat.get(teamId)?.firstTeamResponseSeconds ?? 0) >= 30);
    assert.equal(byChat.get(handedId)?.outcome, 'handed_off');
    assert.equal(byChat.get(handedId)?.firstTeamResponseSeconds, null);
    for (const c of byChat.values()) {
      assert.equal(c.durable, null);
      assert.equal(c.confirmed, false);
      assert.equal(c.endedAt !== null && c.endedAt >= c.startedAt, true);
    }

    const summary = await s.summary();
    assert.equal(summary.conversations, 5);
    assert.deepEqual(summary.outcomes, {
      resolvedByAgent: 2,
      resolvedByAgentConfirmed: 0,
      resolvedByAgentDurable: 0,
      resolvedByTeam: 1,
      handedOff: 1,
      unanswered: 1,
      open: 0,
    });
    assert.equal(summary.agentResolutionRate, 2 / 5);
    assert.equal(summary.handoffRate, 2 / 5, 'the handoff a member resolved after counts');
    assert.deepEqual(summary.handoffReasons, { model: 0, customer_request: 2, fallbacks: 0 });
    assert.equal(summary.answeredAfterChoice, 0);
    assert.deepEqual(summary.csat, { agent: { count: 0, average: null }, team: { count: 0, average: null } });
    assert.deepEqual(summary.perDay.map((d) => d.date), [day(-1), day(0), day(1)]);
    const sum = (key: 'conversations' | 'resolvedByAgent' | 'handedOff' | 'resolvedByTeam') => summary.perDay.reduce((n, d) => n + d[key], 0);
    assert.deepEqual([sum('conversations'), sum('resolvedByAgent'), sum('handedOff'), sum('resolvedByTeam')], [5, 2, 1, 1]);
    assert.deepEqual(summary.perChannel, [{ channelId: s.channelId, name: 'Support', conversations: 5, resolvedByAgent: 2 }]);
    assert.equal(summary.perMember.length, 1);
    assert.equal(summary.perMember[0]?.memberId, s.owner.accountId);
    assert.equal(summary.perMember[0]?.conversations, 1);
    // At least 30 s (the member replied after the clock moved): a percentile is within 4.5 % of the exact figure.
    assert.ok(summary.firstResponseSeconds.team.p50 !== null && summary.firstResponseSeconds.team.p50 >= 30 * 0.955);
    assert.ok(summary.firstResponseSeconds.agent.p50 !== null);
    assert.equal(await metric('resolved_by_agent'), metricsBefore.agent + 2);
    assert.equal(await metric('resolved_by_team'), metricsBefore.team + 1);

    // A member filter: the conversations it replied in.
    const mine = await s.ledger({ memberId: s.owner.accountId });
    assert.deepEqual(mine.conversations.map((c) => c.chatId), [teamId]);

    // A new message in `answered` after its end: a second conversation; the first is not durable.
    await s.send('answered', 'Thanks, and how long does shipping take?');
    // With the agent's reply to it: a reply written after the clock moves 8 days below would end the conversation then,
    // a week too late to become durable (on a loaded machine the reply's job can run after the clock has moved).
    const conversations = await eventually(async () => {
      const list = (await s.ledger()).conversations.filter((c) => c.chatId === answeredId);
      return list.length === 2 && (list[0]?.messages ?? 0) >= 2 && list;
    }, 30_000);
    const [second, first] = conversations;
    assert.equal(second?.outcome, 'open');
    assert.equal(first?.durable, false);

    // 8 days later: the second ended by quiet time long ago; the others are durable now (the first stays false).
    offset += 8 * DAY;
    const settled = async () => (await s.ledger({ from: new Date(Date.now() + offset - 9 * DAY).toISOString().slice(0, 10) })).conversations;
    await eventually(async () => {
      const list = await settled();
      return list.every((c) => c.outcome !== 'open' && (c.chatId === answeredId && c.id === first?.id ? c.durable === false : c.durable === true)) && list;
    }, 30_000).catch(async (error: unknown) => {
      // What did not settle, for the report.
      const list = await settled();
      throw new Error(`${String(error)}: ${JSON.stringify(list.map((c) => [c.outcome, c.durable, c.startedAt, c.endedAt, c.messages]))}`);
    });
    const later = await s.summary({ from: new Date(Date.now() + offset - 9 * DAY).toISOString().slice(0, 10) });
    assert.equal(later.outcomes.resolvedByAgentDurable, 2, 'done, and the second conversation of `answered`');
  });

  test('a fallback alone is unanswered; a conversation that starts while the task is done ends by quiet time', async () => {
    const s = await setUp();
    await t.console(s.owner.token, 'PUT', '/account/settings/', { body: { resolutionQuietMinutes: 5 } });
    await s.send('fb', 'Qwerty zxcvb?');
    const chatId = await s.chatIdOf('fb');
    await s.conversationOf(chatId, 2);
    assert.equal((await t.console(s.owner.token, 'POST', `/chat/status/${chatId}/`, { body: { status: 'done' } })).status, 200);
    const [ended] = (await s.ledger()).conversations;
    assert.equal(ended?.outcome, 'unanswered');
    // The task is still done; a new customer message starts a conversation that ends only by quiet time.
    await s.send('fb', 'Qwerty again?');
    await eventually(async () => (await s.ledger({ outcome: 'open' })).conversations.length === 1);
    offset += 4 * MINUTE;
    await new Promise((resolve) => setTimeout(resolve, 300)); // a few sweeps: none may end it before 5 minutes
    assert.equal((await s.ledger({ outcome: 'open' })).conversations.length, 1);
    offset += 2 * MINUTE;
    await eventually(async () => (await s.ledger({ outcome: 'open' })).conversations.length === 0, 30_000);
  });

  test('an open conversation says what has happened so far and when quiet time would end it; both null once ended', async () => {
    const s = await setUp();
    assert.equal((await t.console(s.owner.token, 'PUT', '/account/settings/', { body: { resolutionQuietMinutes: 30 } })).status, 200);
    const find = async (chatId: string) => {
      const found = (await s.ledger()).conversations.find((c) => c.chatId === chatId);
      assert.ok(found, chatId);
      return found;
    };
    // The agent answered: answered_by_agent, ending 30 minutes after the customer's message (its start).
    await s.send('answered', 'How long does shipping take?');
    const answeredId = await s.chatIdOf('answered');
    const answered = await s.conversationOf(answeredId, 2);
    assert.deepEqual([answered.outcome, answered.state], ['open', 'answered_by_agent']);
    assert.equal(answered.endsAt, new Date(Date.parse(answered.startedAt) + 30 * MINUTE).toISOString());
    // Handed off: waiting for the team; a member replies: waiting for the customer; the customer writes again (the
    // agent stays paused after a handoff): waiting for the team, and the end moves with the customer's message.
    await s.send('handed', 'Can I talk to a real person please?');
    const handedId = await s.chatIdOf('handed');
    const handed = await s.conversationOf(handedId, 2);
    assert.equal(handed.state, 'waiting_for_team');
    assert.equal((await t.console(s.owner.token, 'POST', `/chat/messages/${handedId}/`, { body: { text: 'Ann here, how can I help?' } })).status, 201);
    assert.equal((await find(handedId)).state, 'waiting_for_customer');
    offset += MINUTE;
    await s.send('handed', 'My parcel is late.');
    const again = await s.conversationOf(handedId, 4);
    assert.equal(again.state, 'waiting_for_team');
    assert.ok(again.endsAt !== null && handed.endsAt !== null && Date.parse(again.endsAt) >= Date.parse(handed.endsAt) + MINUTE, `${again.endsAt} after ${handed.endsAt}`);
    // A fallback asks the customer to put it another way: waiting for the customer.
    await s.send('fallback', 'Qwerty zxcvb?');
    assert.equal((await s.conversationOf(await s.chatIdOf('fallback'), 2)).state, 'waiting_for_customer');
    // Nothing answered yet (the agent's responses are off for the channel): new.
    assert.equal((await t.console(s.owner.token, 'PUT', `/channel/custom/${s.channelId}/`, { body: { disableAgentResponses: true } })).status, 200);
    await s.send('unanswered', 'Anyone there?');
    assert.equal((await s.conversationOf(await s.chatIdOf('unanswered'), 1)).state, 'new');
    // Ended (the task done): outcome, no state, no end time to come.
    assert.equal((await t.console(s.owner.token, 'POST', `/chat/status/${answeredId}/`, { body: { status: 'done' } })).status, 200);
    const ended = await find(answeredId);
    assert.deepEqual([ended.outcome, ended.state, ended.endsAt], ['resolved_by_agent', null, null]);
  });

  test('the setting: validation, admin only, each account its own', async () => {
    const s = await setUp();
    for (const bad of [0, 10081, 1.5, '60']) {
      const res = await t.console(s.owner.token, 'PUT', '/account/settings/', { body: { resolutionQuietMinutes: bad } });
      assert.equal(res.status, 400, `${String(bad)}: ${res.text}`);
    }
    assert.equal((await t.console(s.owner.token, 'PUT', '/account/settings/', { body: { other: 1 } })).status, 400);
    const max = await t.console(s.owner.token, 'PUT', '/account/settings/', { body: { resolutionQuietMinutes: 10080 } });
    assert.deepEqual(max.body, { resolutionQuietMinutes: 10080, retentionDays: null, requireTwoFactor: false });
    // An agent reads it, cannot change it.
    const email = `agent-${process.pid}-${Date.now()}@example.com`;
    const invite = await t.console<{ inviteUrl: string }>(s.owner.token, 'POST', '/members/invite/', { body: { email, role: 'agent' } });
    const accepted = await t.console<{ token: string }>(undefined, 'POST', '/auth/accept-invite', {
      body: { token: invite.body.inviteUrl.slice(`${PUBLIC_URL}/invite/`.length), name: 'Agent', password: PASSWORD },
    });
    assert.equal(accepted.status, 200, accepted.text);
    assert.deepEqual((await t.console(accepted.body.token, 'GET', '/account/settings/')).body, { resolutionQuietMinutes: 10080, retentionDays: null, requireTwoFactor: false });
    const refused = await t.console(accepted.body.token, 'PUT', '/account/settings/', { body: { resolutionQuietMinutes: 5 } });
    assert.equal(refused.status, 403);
    const other = await t.createConsoleUser();
    assert.deepEqual((await t.console(other.token, 'GET', '/account/settings/')).body, { resolutionQuietMinutes: 1440, retentionDays: null, requireTwoFactor: false });
  });

  test('the daily rollup the summary reads equals a recount of the conversations: after the flows above, a rating, a chat deleted with its channel', async () => {
    const store = createConversationsStore(t.database.db);
    const [unrated] = await queryRows<{ id: string; chatId: string }>(
      t.database.db,
      sql`select id, chat_id as "chatId" from conversations where ended_at is not null and csat_rating is null order by started_at limit 1`,
    );
    assert.ok(unrated, 'an ended conversation from the flows above');
    assert.equal(await store.rate(unrated.chatId, unrated.id, 5, 'Great', clock.now()), 'rated');

    // A conversation ended by done, then its channel deleted with its chats: counted in, then out.
    const s = await setUp({ disableAgentResponses: true });
    await s.send('gone', 'Anyone?');
    const goneId = await s.chatIdOf('gone');
    assert.equal((await t.console(s.owner.token, 'POST', `/chat/status/${goneId}/`, { body: { status: 'done' } })).status, 200);
    assert.deepEqual((await s.summary()).outcomes, {
      resolvedByAgent: 0, resolvedByAgentConfirmed: 0, resolvedByAgentDurable: 0, resolvedByTeam: 0, handedOff: 0, unanswered: 1, open: 0,
    });
    const deleted = await t.console(s.owner.token, 'DELETE', `/channel/custom/${s.channelId}/`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await s.summary()).conversations, 0);

    // Rows whose every count is 0 (all their conversations gone) are no figure: left out of both sides. Histograms
    // are compared bucket by bucket (a stored one spans the buckets it ever counted in, a recount's only those > 0).
    const dense = (text: unknown) => {
      const histogram = emptyHistogram();
      addHistogram(histogram, typeof text === 'string' ? text : null);
      return histogram.join(',');
    };
    const hist = (column: string) => sql.raw(`array_lower(${column}, 1) || ':' || array_to_string(${column}, ',', '0') as ${column}`);
    const rollup = async () =>
      (
        await queryRows<Record<string, unknown>>(
          t.database.db,
          sql`select account_id, member_id, to_char(day, 'YYYY-MM-DD') as day, channel_id, ended, resolved_by_agent,
                     resolved_by_agent_confirmed, resolved_by_agent_durable, resolved_by_team, handed_off, unanswered,
                     ended_handed_off, answered_after_choice, reason_model, reason_customer_request, reason_fallbacks,
                     csat_count, csat_sum, csat_agent_count, csat_agent_sum, csat_team_count, csat_team_sum,
                     ${hist('agent_hist')}, ${hist('team_hist')}, ${hist('resolution_hist')}
              from conversation_days order by 1, 2, 3, 4`,
        )
      )
        .map((row): Record<string, unknown> => ({ ...row, agent_hist: dense(row.agent_hist), team_hist: dense(row.team_hist), resolution_hist: dense(row.resolution_hist) }))
        .filter((row) => Object.entries(row).some(([key, value]) => (key.endsWith('_hist') ? /[1-9]/.test(String(value)) : typeof value === 'number' && value !== 0)));
    const kept = await rollup();
    assert.ok(kept.length >= 3, `${kept.length} rows`);
    assert.ok(kept.some((row) => row.member_id !== '00000000-0000-0000-0000-000000000000'), 'a member\'s rows');
    assert.ok(kept.some((row) => row.csat_count === 1 && row.csat_sum === 5), 'the rating');
    await t.database.db.execute(sql`select conversation_days_rebuild()`);
    assert.deepEqual(await rollup(), kept);
  });
});
