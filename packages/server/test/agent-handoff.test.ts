// Handoff to the team end to end over HTTP (docs/architecture.md, Handoff to the team): a customer asking for a person in seven
// languages on both engines, the model calling `hand_off` (a real local model server), the knowledge-base engine's
// fallbacks in a row, the handoff message, the pause and `needsHuman` (the console filter, clearing by a member's
// reply or a resume, tenant isolation), `chat_handed_off` in the event feed and never at a webhook, the metric and
// the overview, and the channel fields' validation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { EventPage, WebhookEvent } from '@parley/contracts';
import { sql } from 'drizzle-orm';
import { fallbackText, handoffText } from '../src/agent/agent-texts.ts';
import { SUMMARY_PROMPT } from '../src/agent/handoff/model-summary.ts';
import { queryRows } from '../src/db/client.ts';
import { eventually as eventuallyWithin } from './support/events.ts';
import { reply, startFakeLlm, type FakeLlm, type LlmRequest } from './support/fake-llm.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

/**
 * Every wait of this file is at least 45 s: its tests run at once (`concurrency: true`), so on a
 * loaded 2-core machine each is served slowly (a CI run beside other files saw 15 s run out). A wait ends as soon
 * as its condition holds.
 */
const eventually = <T>(check: () => Promise<T | undefined | false>, ms = 0): Promise<T> => eventuallyWithin(check, Math.max(ms, 45_000));

const COMPLETIONS = '/v1/chat/completions';
const METRICS_TOKEN = 'metrics-token-for-handoff-tests';
const HANDOFF_EN = 'I am passing your conversation to a member of our team; they will reply here as soon as they can.';
const HANDOFF_RU = 'Я передаю ваш разговор сотруднику нашей команды; он ответит здесь, как только сможет.';
const FALLBACK_EN = "I'm not sure I understood. Could you put it another way? You can also ask for a person.";
const ENTRIES = [
  { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
  { question: 'I want to talk to a human', answer: 'This entry must never be sent: a request for a person wins.' },
];

/** A request for a person and a message that only mentions one, per language. */
const LANGUAGES: Record<string, { request: string; mention: string }> = {
  en: { request: 'Can I talk to a real person please?', mention: 'Do you sell a human-sized pan?' },
  ru: { request: 'Соедините меня с оператором', mention: 'Оператор крана сегодня не работает' },
  de: { request: 'Ich möchte mit einem Menschen sprechen', mention: 'Haben Sie eine menschengroße Pfanne?' },
  fr: { request: 'Je veux parler à un conseiller', mention: "L'opérateur de la grue est absent" },
  es: { request: 'Quiero hablar con una persona real', mention: 'Soy una persona real' },
  it: { request: 'Vorrei parlare con un operatore', mention: "L'operatore della gru è in ferie" },
  pt: { request: 'Quero falar com um atendente', mention: 'Eu sou uma pessoa real' },
};

interface InboxChat {
  id: string;
  paused: boolean;
  needsHuman: boolean;
  chatId: string;
}
interface ChatList {
  chats: InboxChat[];
  count: number;
}
interface HistoryItem {
  kind: 'message' | 'note' | 'summary';
  role?: string;
  text: string;
  fromAgent?: boolean;
  agentOutcome?: string | null;
  author?: { id: string | null; name: string };
}

type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;

interface CompletionBody {
  messages: { role: string; content: string }[];
  tools?: unknown[];
}
/** The model's request for a handoff's summary (not an agent turn). */
const isSummaryRequest = (request: LlmRequest) => (request.json as CompletionBody).messages[0]?.content.startsWith(SUMMARY_PROMPT) === true;
/** The requests of the agent's turns, the summaries' aside. */
const agentTurns = (fake: FakeLlm) => fake.to(COMPLETIONS).filter((request) => !isSummaryRequest(request));

describe('handoff to the team', { concurrency: true }, () => {
  let t: TestApp;
  let receiver: Receiver;
  const closers: (() => Promise<void>)[] = [];
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    receiver = await startReceiver();
  });
  after(async () => {
    await t.close();
    await receiver.close();
    await Promise.all(closers.map((close) => close()));
  });

  async function fakeLlm(): Promise<FakeLlm> {
    const fake = await startFakeLlm();
    closers.push(() => fake.close());
    return fake;
  }

  /** A console user's API channel with a knowledge base (English entries) and a webhook; `channel` overrides the body. */
  async function setUp(channel: Record<string, unknown> = {}, user?: User) {
    const owner = user ?? (await t.createConsoleUser());
    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    assert.equal(base.status, 201, base.text);
    for (const entry of ENTRIES) {
      const res = await t.console(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: entry });
      assert.equal(res.status, 201, res.text);
    }
    const created = await t.console<{ id: string; handoffMessage: string | null; handoffAfterFallbacks: number }>(
      owner.token,
      'POST',
      '/channel/custom/connect/',
      // Never clarifying: these tests are about fallbacks (agent-clarify.test.ts has the clarifications).
      { body: { name: 'Support', webhookUrl: `${receiver.url}/hook`, knowledgeBaseId: base.body.id, clarifyChoices: 0, ...channel } },
    );
    assert.equal(created.status, 201, created.text);
    const channelId = created.body.id;
    const send = async (externalChatId: string, text: string) => {
      const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: owner.key },
        body: { channel: 'custom', channelId, externalChatId, role: 'user', text },
      });
      assert.equal(res.status, 201, res.text);
    };
    const hooks = (externalChatId: string) =>
      receiver.requests
        .filter((request) => request.url === '/hook')
        .map((request) => JSON.parse(request.body) as WebhookEvent & { chat: { uniqueId: string } })
        .filter((payload) => payload.chat.uniqueId === `${channelId}:${externalChatId}`);
    /** The agent's and the team's messages of a chat as the webhook got them, in order (a redelivery counted once). */
    const replies = (externalChatId: string) => {
      const messages = hooks(externalChatId).flatMap((payload) => (payload.event === 'new_messages' ? payload.messages : []));
      const seen = new Set<string>();
      return messages.filter((m) => m.role === 'assistant' && !seen.has(m.id) && seen.add(m.id)).map((m) => m.text);
    };
    /** Waits for the n-th agent message of the chat at the webhook. */
    const nthReply = (externalChatId: string, n: number) => eventually(async () => replies(externalChatId)[n - 1], 10_000);
    const inbox = async (query: Record<string, string> = {}, as: User = owner) => {
      const res = await t.console<ChatList>(as.token, 'GET', '/chat/all-chats/', { query: { channelId, ...query } });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const chatOf = async (externalChatId: string) => {
      const chat = (await inbox()).chats.find((c) => c.chatId === externalChatId);
      assert.ok(chat, `chat ${externalChatId} is listed`);
      return chat;
    };
    /** The account's event feed, every page. */
    const feed = async () => {
      const res = await t.api<EventPage>(owner.key, '/events', { limit: '1000' });
      assert.equal(res.status, 200, res.text);
      return res.body.events.filter((event) => event.channelId === channelId).map((event) => event.payload);
    };
    const handedOff = async (externalChatId: string) =>
      (await feed()).filter((payload) => payload.event === 'chat_handed_off' && payload.chat.uniqueId === `${channelId}:${externalChatId}`);
    return { user: owner, channelId, channel: created.body, send, hooks, replies, nthReply, inbox, chatOf, feed, handedOff };
  }

  /** Nothing is left for the agent of this chat: no reply job queued or running, no message waiting. */
  async function agentIdle(chatId: string): Promise<boolean> {
    const [row] = await queryRows<{ jobs: number; waiting: number }>(
      t.database.db,
      sql`select (select count(*) from jobs where kind = 'agent.reply' and payload->>'chatId' = ${chatId})::int as jobs,
                 (select count(*) from messages where awaiting_agent and chat_id = ${chatId})::int as waiting`,
    );
    return row?.jobs === 0 && row.waiting === 0;
  }

  async function metric(app: TestApp, engine: string, outcome: string): Promise<number> {
    const res = await app.request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(res.status, 200);
    const line = res.text.split('\n').find((l) => l.startsWith(`parley_agent_replies_total{engine="${engine}",outcome="${outcome}"}`));
    return Number(line?.split(' ').at(-1) ?? 0);
  }

  test('knowledge-base engine, seven languages: a request for a person hands over, a mention of one does not', async () => {
    for (const [lang, { request, mention }] of Object.entries(LANGUAGES)) {
      const s = await setUp({ settings: { aiLang: lang } });
      await s.send('asks', request);
      const text = await s.nthReply('asks', 1);
      assert.equal(text, handoffText(lang), `${lang}: the default handoff sentence in the channel's language`);
      const chat = await eventually(async () => {
        const listed = await s.chatOf('asks');
        return listed.needsHuman && listed;
      });
      assert.equal(chat.paused, true, `${lang}: the agent paused itself`);
      const [event, ...more] = await eventually(async () => {
        const events = await s.handedOff('asks');
        return events.length > 0 && events;
      });
      assert.equal(more.length, 0);
      assert.equal(event?.event === 'chat_handed_off' && event.reason, 'customer_request', lang);

      // A mention of a person is an ordinary message: the fallback (nothing in the base answers it).
      await s.send('mentions', mention);
      assert.equal(await s.nthReply('mentions', 1), fallbackText(lang), lang);
      assert.equal((await s.chatOf('mentions')).needsHuman, false, lang);
      assert.deepEqual(await s.handedOff('mentions'), []);
    }
    assert.equal(HANDOFF_RU, handoffText('ru'));
  });

  test('a request for a person wins over an exact entry; the message, the pause, the feed; no webhook for it', async () => {
    const s = await setUp({ handoffMessage: 'A colleague will answer you here shortly.' });
    await s.send('c1', 'I want to talk to a human');
    assert.equal(await s.nthReply('c1', 1), 'A colleague will answer you here shortly.');
    const events = await eventually(async () => {
      const all = await s.handedOff('c1');
      return all.length === 1 && all;
    });
    const [event] = events;
    assert.ok(event?.event === 'chat_handed_off');
    const chat = await s.chatOf('c1');
    assert.deepEqual(Object.keys(event).sort(), ['chat', 'event', 'reason', 'timestamp']);
    assert.equal(event.reason, 'customer_request');
    assert.equal(event.chat.id, chat.id);
    assert.equal(event.chat.uniqueId, `${s.channelId}:c1`);
    assert.match(event.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The feed's order: the customer's message, the handoff message, then the handoff.
    assert.deepEqual(
      (await s.feed()).filter((p) => p.chat.uniqueId === `${s.channelId}:c1`).map((p) => p.event),
      ['new_messages', 'new_messages', 'chat_handed_off'],
    );
    // The public chat object: the spec's pause.
    const listed = await t.api<{ chats: { id: string; paused: boolean }[] }>(s.user.key, '/chats/chat', { channelId: s.channelId });
    assert.equal(listed.body.chats.find((c) => c.id === chat.id)?.paused, true);
    // Webhooks: the two messages only, and no delivery row was ever made for the handoff event.
    // (A slow receiver may get a delivery twice: the spec's at-least-once.)
    await eventually(async () => s.hooks('c1').length >= 2);
    assert.deepEqual([...new Set(s.hooks('c1').map((p) => p.event))], ['new_messages']);
    const [row] = await queryRows<{ deliveries: number }>(
      t.database.db,
      sql`select count(*)::int as deliveries from deliveries d join events e on e.id = d.event_id where e.kind = 'chat_handed_off' and e.channel_id = ${s.channelId}`,
    );
    assert.equal(row?.deliveries, 0);
    // The handoff message is an agent reply of the history; the chat now waits for a person: the agent stays silent.
    await s.send('c1', 'How long does shipping take?');
    await eventually(() => agentIdle(chat.id));
    assert.deepEqual(s.replies('c1'), ['A colleague will answer you here shortly.']);
    assert.equal(receiver.requests.some((r) => r.body.includes('chat_handed_off')), false);
  });

  test("needsHuman: the console filter, cleared by a member's reply (still paused until resumed) or by a resume", async () => {
    const s = await setUp();
    await s.send('replied', 'speak to an agent');
    await s.send('resumed', 'operator please');
    await s.send('quiet', 'How long does shipping take?');
    await s.nthReply('quiet', 1);
    const waiting = await eventually(async () => {
      const list = await s.inbox({ needsHuman: 'true' });
      return list.count === 2 && list;
    });
    assert.deepEqual(waiting.chats.map((c) => c.chatId).sort(), ['replied', 'resumed']);
    assert.ok(waiting.chats.every((c) => c.needsHuman && c.paused));
    assert.equal((await s.inbox()).count, 3);
    assert.equal((await s.chatOf('quiet')).needsHuman, false);

    const replied = await s.chatOf('replied');
    const info = await t.console<InboxChat>(s.user.token, 'GET', `/chat/info/${replied.id}/`);
    assert.equal(info.body.needsHuman, true);
    const sent = await t.console(s.user.token, 'POST', `/chat/messages/${replied.id}/`, { body: { text: 'Hello, I am here.' } });
    assert.equal(sent.status, 201, sent.text);
    // The member's reply reaches the webhook (a delivery, after the commit) before the agent's silence is judged.
    await eventually(async () => s.replies('replied').includes('Hello, I am here.'), 10_000);
    const after = await t.console<InboxChat>(s.user.token, 'GET', `/chat/info/${replied.id}/`);
    assert.equal(after.body.needsHuman, false);
    assert.equal(after.body.paused, true, 'the agent stays paused until a member resumes it');
    assert.deepEqual((await s.inbox({ needsHuman: 'true' })).chats.map((c) => c.chatId), ['resumed']);
    await s.send('replied', 'How long does shipping take?');
    await eventually(() => agentIdle(replied.id));
    await eventually(async () => s.replies('replied').length >= 2);
    assert.deepEqual(s.replies('replied'), [HANDOFF_EN, 'Hello, I am here.']);
    // Follow-through (issue #33): the customer wrote again while the agent is paused: the chat needs a person again.
    assert.equal((await s.chatOf('replied')).needsHuman, true);

    const resumed = await s.chatOf('resumed');
    const res = await t.console<{ id: string; paused: boolean }>(s.user.token, 'POST', `/chat/resume-chat/${resumed.id}/`);
    assert.deepEqual(res.body, { id: resumed.id, paused: false });
    assert.deepEqual((await s.inbox({ needsHuman: 'true' })).chats.map((c) => c.chatId), ['replied']);
    // Resumed: the agent answers again.
    await s.send('resumed', 'How long does shipping take?');
    assert.equal(await s.nthReply('resumed', 2), 'Shipping takes 3 to 5 business days.');
  });

  test('needsHuman=true lists only the caller account\'s chats', async () => {
    const a = await setUp();
    const b = await setUp();
    await a.send('a1', 'talk to a human');
    await b.send('b1', 'talk to a human');
    await a.nthReply('a1', 1);
    await b.nthReply('b1', 1);
    for (const [s, own] of [
      [a, 'a1'],
      [b, 'b1'],
    ] as const) {
      const list = await eventually(async () => {
        const res = await t.console<ChatList>(s.user.token, 'GET', '/chat/all-chats/', { query: { needsHuman: 'true' } });
        return res.body.count === 1 && res.body;
      });
      assert.deepEqual(list.chats.map((c) => c.chatId), [own]);
    }
    // Another account's chat cannot be read, replied to or resumed.
    const other = await b.chatOf('b1');
    assert.equal((await t.console(a.user.token, 'GET', `/chat/info/${other.id}/`)).status, 404);
    assert.equal((await t.console(a.user.token, 'POST', `/chat/messages/${other.id}/`, { body: { text: 'hi' } })).status, 404);
    assert.equal((await t.console(a.user.token, 'POST', `/chat/resume-chat/${other.id}/`)).status, 404);
    assert.equal((await b.chatOf('b1')).needsHuman, true);
  });

  test('the handoff summary (issue #44): a note of kind summary with the request (no greeting, no repeat), the answer, the reason, the card', async () => {
    const s = await setUp({ settings: { greeting: 'Hi! How can I help?' }, handoffAfterFallbacks: 3 });
    await s.send('sum', 'Hello there');
    assert.equal(await s.nthReply('sum', 1), 'Hi! How can I help?');
    await s.send('sum', 'How long does shipping take?');
    assert.equal(await s.nthReply('sum', 2), 'Shipping takes 3 to 5 business days.');
    await s.send('sum', 'Do you repair bicycles?');
    assert.equal(await s.nthReply('sum', 3), FALLBACK_EN);
    await s.send('sum', 'Do you repair bicycles?');
    assert.equal(await s.nthReply('sum', 4), FALLBACK_EN);
    await s.send('sum', 'Thanks!');
    assert.equal(await s.nthReply('sum', 5), HANDOFF_EN);
    const chat = await s.chatOf('sum');
    const history = await t.console<{ messages: (HistoryItem & { id: string })[] }>(s.user.token, 'GET', `/chat/messages/${chat.id}/`);
    assert.equal(history.status, 200, history.text);
    const summaries = history.body.messages.filter((item) => item.kind === 'summary');
    assert.deepEqual(
      summaries.map((item) => ({ text: item.text, author: item.author })),
      [
        {
          text: [
            'Request: How long does shipping take? / Do you repair bicycles?',
            `Agent: could not answer ("${FALLBACK_EN}")`,
            'Reason: the AI agent could not answer',
            `Customer: ${(chat as InboxChat & { dialogName: string }).dialogName} · no e-mail · id sum · Support (custom)`,
          ].join('\n'),
          author: { id: null, name: 'AI agent' },
        },
      ],
    );
    // It comes right after the handoff message, and never reaches the webhook.
    const kinds = history.body.messages.map((item) => item.kind);
    assert.deepEqual(kinds.slice(-2), ['message', 'summary']);
    assert.equal(receiver.requests.some((r) => r.body.includes('Request: How long')), false);
  });

  test('handoffAfterFallbacks: the n-th fallback in a row hands over; a greeting is not one, an answer resets the count', async () => {
    // Default 2: the first unanswered question gets the fallback, the second hands over.
    const s = await setUp();
    assert.equal(s.channel.handoffAfterFallbacks, 2);
    assert.equal(s.channel.handoffMessage, null);
    await s.send('two', 'Do you repair bicycles?');
    assert.equal(await s.nthReply('two', 1), FALLBACK_EN);
    await s.send('two', 'What about scooters?');
    assert.equal(await s.nthReply('two', 2), HANDOFF_EN);
    const [event] = await eventually(async () => {
      const events = await s.handedOff('two');
      return events.length === 1 && events;
    });
    assert.equal(event?.event === 'chat_handed_off' && event.reason, 'fallbacks');

    // An answer between two fallbacks resets the count.
    await s.send('reset', 'Do you repair bicycles?');
    await s.nthReply('reset', 1);
    await s.send('reset', 'How long does shipping take?');
    assert.equal(await s.nthReply('reset', 2), 'Shipping takes 3 to 5 business days.');
    await s.send('reset', 'What about scooters?');
    assert.equal(await s.nthReply('reset', 3), FALLBACK_EN);
    await s.send('reset', 'And skateboards?');
    assert.equal(await s.nthReply('reset', 4), HANDOFF_EN);

    // A greeting on the first message is not a fallback: the 3rd unanswered message (2nd fallback) hands over.
    const greeted = await setUp({ settings: { greeting: 'Hi! How can I help?' }, handoffAfterFallbacks: 2 });
    await greeted.send('g', 'Hello there');
    assert.equal(await greeted.nthReply('g', 1), 'Hi! How can I help?');
    await greeted.send('g', 'Do you repair bicycles?');
    assert.equal(await greeted.nthReply('g', 2), FALLBACK_EN);
    await greeted.send('g', 'What about scooters?');
    assert.equal(await greeted.nthReply('g', 3), HANDOFF_EN);

    // 1: the first fallback hands over; 0: never.
    const one = await setUp({ handoffAfterFallbacks: 1, handoffMessage: 'Passing you to the team.' });
    await one.send('o', 'Do you repair bicycles?');
    assert.equal(await one.nthReply('o', 1), 'Passing you to the team.');
    const never = await setUp({ handoffAfterFallbacks: 0 });
    for (let i = 1; i <= 3; i += 1) {
      await never.send('n', `Unanswerable question number ${i}?`);
      assert.equal(await never.nthReply('n', i), FALLBACK_EN);
    }
    assert.equal((await never.chatOf('n')).needsHuman, false);
  });

  test('parley_agent_replies_total counts a handoff as outcome handoff, nothing else', async () => {
    // Alone in its app's metrics: the other tests of this file run in another app.
    const m = await startTestApp({ webhookAllowPrivateNetworks: true, metricsToken: METRICS_TOKEN });
    closers.push(() => m.close());
    const user = await m.createConsoleUser();
    const created = await m.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'Metrics' } });
    const send = (text: string) =>
      m.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId: created.body.id, externalChatId: 'x', role: 'user', text },
      });
    assert.equal((await send('Do you repair bicycles?')).status, 201);
    await eventually(async () => (await metric(m, 'knowledge-base', 'fallback')) === 1);
    assert.equal((await send('let me talk to a human')).status, 201);
    await eventually(async () => (await metric(m, 'knowledge-base', 'handoff')) === 1);
    assert.equal(await metric(m, 'knowledge-base', 'fallback'), 1);
    assert.equal(await metric(m, 'knowledge-base', 'answered'), 0);
  });

  test('overview: answered / fell back / handed off per day; a greeting is no answer', async () => {
    const s = await setUp({ handoffAfterFallbacks: 3, settings: { greeting: 'Hello! Ask me anything.' } });
    await s.send('o2', 'Hi there');
    assert.equal(await s.nthReply('o2', 1), 'Hello! Ask me anything.');
    await s.send('o1', 'How long does shipping take?');
    await s.nthReply('o1', 1);
    await s.send('o1', 'Do you repair bicycles?');
    await s.nthReply('o1', 2);
    await s.send('o1', 'talk to a person');
    await s.nthReply('o1', 3);
    const overview = await t.console<{
      agentReplies: { answered: number; answeredAfterChoice: number; clarified: number; fellBack: number; handedOff: number };
      agentRepliesPerDay: { date: string; answered: number; answeredAfterChoice: number; clarified: number; fellBack: number; handedOff: number }[];
    }>(s.user.token, 'GET', '/overview/', { query: { days: '3' } });
    assert.equal(overview.status, 200, overview.text);
    assert.deepEqual(overview.body.agentReplies, { answered: 1, answeredAfterChoice: 0, clarified: 0, fellBack: 1, handedOff: 1 });
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(overview.body.agentRepliesPerDay.length, 3);
    assert.deepEqual(overview.body.agentRepliesPerDay.at(-1), { date: today, answered: 1, answeredAfterChoice: 0, clarified: 0, fellBack: 1, handedOff: 1 });
    assert.deepEqual(overview.body.agentRepliesPerDay[0], { date: overview.body.agentRepliesPerDay[0]?.date, answered: 0, answeredAfterChoice: 0, clarified: 0, fellBack: 0, handedOff: 0 });
  });

  test('channel fields: shown, changed, validated (0–10, null message); unknown filter values are 400', async () => {
    const s = await setUp();
    const path = `/channel/custom/${encodeURIComponent(s.channelId)}/`;
    const changed = await t.console<{ handoffMessage: string | null; handoffAfterFallbacks: number }>(s.user.token, 'PUT', path, {
      body: { handoffMessage: 'Our team takes over.', handoffAfterFallbacks: 10 },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.handoffMessage, 'Our team takes over.');
    assert.equal(changed.body.handoffAfterFallbacks, 10);
    const reset = await t.console<{ handoffMessage: string | null }>(s.user.token, 'PUT', path, { body: { handoffMessage: null } });
    assert.equal(reset.body.handoffMessage, null);
    for (const body of [{ handoffAfterFallbacks: 11 }, { handoffAfterFallbacks: -1 }, { handoffAfterFallbacks: 1.5 }, { handoffMessage: '' }]) {
      const res = await t.console<{ statusCode: number }>(s.user.token, 'PUT', path, { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.statusCode, 400);
    }
    const connect = await t.console(s.user.token, 'POST', '/channel/custom/connect/', { body: { name: 'x', handoffAfterFallbacks: 42 } });
    assert.equal(connect.status, 400);
    const badFilter = await t.console(s.user.token, 'GET', '/chat/all-chats/', { query: { needsHuman: 'maybe' } });
    assert.equal(badFilter.status, 400);
  });

  describe('openai-compatible engine', () => {
    async function modelChannel(channel: Record<string, unknown> = {}) {
      const fake = await fakeLlm();
      const s = await setUp({
        agentEngine: { kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'test-model', timeoutSeconds: 10 },
        ...channel,
      });
      return { ...s, fake };
    }

    test('the model calls hand_off: the handoff message (no second request), reason model, its reason as a note', async () => {
      const s = await modelChannel({ handoffMessage: 'One of our people will take it from here.' });
      s.fake.script(COMPLETIONS, reply.handOff('call_h', 'The customer wants a refund exception the entries do not cover.'));
      await s.send('m1', 'I was charged twice, I want my money back now!');
      assert.equal(await s.nthReply('m1', 1), 'One of our people will take it from here.');
      const [event] = await eventually(async () => {
        const events = await s.handedOff('m1');
        return events.length === 1 && events;
      });
      assert.equal(event?.event === 'chat_handed_off' && event.reason, 'model');
      assert.equal(agentTurns(s.fake).length, 1, 'no follow-up request after hand_off');
      const chat = await s.chatOf('m1');
      assert.equal(chat.needsHuman, true);
      assert.equal(chat.paused, true);
      const history = await t.console<{ messages: HistoryItem[] }>(s.user.token, 'GET', `/chat/messages/${chat.id}/`);
      const note = history.body.messages.find((item) => item.kind === 'note');
      assert.deepEqual(note && { text: note.text, author: note.author }, {
        text: 'Handed to the team: The customer wants a refund exception the entries do not cover.',
        author: { id: null, name: 'AI agent' },
      });
      const summary = history.body.messages.find((item) => item.kind === 'summary');
      assert.equal(
        summary?.text.split('\n').slice(0, 3).join('\n'),
        [
          'Request: I was charged twice, I want my money back now!',
          'Agent: nothing before the handoff',
          'Reason: the AI agent handed it over: The customer wants a refund exception the entries do not cover.',
        ].join('\n'),
      );
      const handoffReply = history.body.messages.find((item) => item.kind === 'message' && item.role === 'assistant');
      assert.equal(handoffReply?.fromAgent, true);
      // Not an answer: the web account offers no correction under it (issue #34).
      assert.equal(handoffReply?.agentOutcome, 'handoff');
      // The note never reaches the chat's webhook (the receiver is shared: other tests' alerts carry such words).
      assert.equal(s.hooks('m1').some((payload) => JSON.stringify(payload).includes('refund exception')), false);
    });

    test('hand_off with complete_task: task_trigger fires, then the handoff', async () => {
      const s = await modelChannel({ settings: { task: 'collect the order number' } });
      s.fake.script(
        COMPLETIONS,
        reply.handOff('call_h', 'Needs a manual refund.', [
          { id: 'call_t', type: 'function', function: { name: 'complete_task', arguments: JSON.stringify({ summary: 'Order 123.' }) } },
        ]),
      );
      await s.send('m2', 'My order is 123, please refund it');
      assert.equal(await s.nthReply('m2', 1), HANDOFF_EN);
      const kinds = await eventually(async () => {
        const all = (await s.feed()).filter((p) => p.chat.uniqueId === `${s.channelId}:m2`).map((p) => p.event);
        return all.length === 5 && all;
      });
      assert.deepEqual(kinds, ['new_messages', 'new_messages', 'task_trigger', 'dialog_status_changed', 'chat_handed_off']);
    });

    test('seven languages: a request for a person is handed over without asking the model', async () => {
      for (const [lang, { request }] of Object.entries(LANGUAGES)) {
        const s = await modelChannel({ settings: { aiLang: lang } });
        s.fake.script(COMPLETIONS, reply.text('The model must not be asked.'));
        await s.send('p', request);
        assert.equal(await s.nthReply('p', 1), handoffText(lang), lang);
        const [event] = await eventually(async () => {
          const events = await s.handedOff('p');
          return events.length === 1 && events;
        });
        assert.equal(event?.event === 'chat_handed_off' && event.reason, 'customer_request', lang);
        assert.equal(agentTurns(s.fake).length, 0, `${lang}: no request to the model`);
      }
    });

    /** The account's alert webhook goes to the receiver (`/alerts/<tag>`): the alerts posted there. */
    async function alertsTo(s: Awaited<ReturnType<typeof modelChannel>>, tag: string) {
      const saved = await t.console(s.user.token, 'PUT', '/account/alerts/', { body: { alertWebhookUrl: `${receiver.url}/alerts/${tag}` } });
      assert.equal(saved.status, 200, saved.text);
      return () => receiver.requests.filter((r) => r.url === `/alerts/${tag}`).map((r) => JSON.parse(r.body) as { reason: string; summary: string | null });
    }

    /** The chat's summaries in its history, and its alerts once the first came. */
    async function summariesOf(s: Awaited<ReturnType<typeof modelChannel>>, externalChatId: string, alerts: () => { reason: string; summary: string | null }[]) {
      const posted = await eventually(async () => alerts().length > 0 && alerts(), 15_000);
      const chat = (await s.chatOf(externalChatId)) as InboxChat & { dialogName: string };
      const history = await t.console<{ messages: HistoryItem[] }>(s.user.token, 'GET', `/chat/messages/${chat.id}/`);
      assert.equal(history.status, 200, history.text);
      const notes = history.body.messages.filter((item) => item.kind === 'summary').map((item) => ({ text: item.text, author: item.author }));
      return { posted, notes, card: `Customer: ${chat.dialogName} · no e-mail · id ${externalChatId} · Support (custom)` };
    }

    const WITHOUT_MODEL = [
      'Request: I was charged twice, I want my money back now!',
      'Agent: nothing before the handoff',
      'Reason: the AI agent handed it over: A refund exception.',
    ];

    test("the model's three lines (issue #44): the summary note and the alert webhook's summary are the model's, above the card", async () => {
      const s = await modelChannel();
      const alerts = await alertsTo(s, 'model-summary');
      const lines = ['Request: a refund of a payment taken twice.', 'Agent: it handed the chat over at once.', 'Reason: a refund exception needs a person.'];
      // The model's list marks are taken off.
      s.fake.script(COMPLETIONS, reply.handOff('call_h', 'A refund exception.'), reply.text(`\n1. ${lines[0]}\n- ${lines[1]}\n${lines[2]}\n`));
      await s.send('ms', 'I was charged twice, I want my money back now!');
      assert.equal(await s.nthReply('ms', 1), HANDOFF_EN);
      const { posted, notes, card } = await summariesOf(s, 'ms', alerts);
      const expected = [...lines, card].join('\n');
      assert.deepEqual(notes, [{ text: expected, author: { id: null, name: 'AI agent' } }]);
      assert.deepEqual(posted.map((alert) => ({ reason: alert.reason, summary: alert.summary })), [{ reason: 'model', summary: expected }]);
      // One request for the summary, without tools: the summary without the model as its facts, and the chat.
      const asked = s.fake.to(COMPLETIONS).filter(isSummaryRequest);
      assert.equal(asked.length, 1);
      const body = asked[0]?.json as CompletionBody;
      assert.equal(body.tools, undefined);
      assert.ok(body.messages[0]?.content.endsWith(`Facts:\n${[...WITHOUT_MODEL, card].join('\n')}`), body.messages[0]?.content);
      assert.deepEqual(body.messages[1], { role: 'user', content: `Customer: I was charged twice, I want my money back now!\nAI agent: ${HANDOFF_EN}` });
    });

    for (const [name, failing, engine] of [
      ['fails (500)', reply.status(500), {}],
      ['does not answer in time', reply.hang(), { timeoutSeconds: 1 }],
      ['writes fewer than three lines', reply.text('Request: a refund.\nReason: money.'), {}],
    ] as const) {
      test(`the model ${name}: the summary without it stays, and the alert carries it`, async () => {
        const fake = await fakeLlm();
        const s = { ...(await setUp({ agentEngine: { kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'test-model', timeoutSeconds: 10, ...engine } })), fake };
        const alerts = await alertsTo(s, `failing-${name.split(' ')[0]}`);
        s.fake.script(COMPLETIONS, reply.handOff('call_h', 'A refund exception.'), failing);
        await s.send('mf', 'I was charged twice, I want my money back now!');
        assert.equal(await s.nthReply('mf', 1), HANDOFF_EN);
        const { posted, notes, card } = await summariesOf(s, 'mf', alerts);
        const expected = [...WITHOUT_MODEL, card].join('\n');
        assert.deepEqual(notes, [{ text: expected, author: { id: null, name: 'AI agent' } }]);
        assert.deepEqual(posted.map((alert) => ({ reason: alert.reason, summary: alert.summary })), [{ reason: 'model', summary: expected }]);
        assert.equal(s.fake.to(COMPLETIONS).filter(isSummaryRequest).length, 1, 'asked once, no retry');
      });
    }

    test("the console's test chat says the handoff message", async () => {
      const s = await modelChannel();
      const res = await t.console<{ reply: string }>(s.user.token, 'POST', `/chat/test/${encodeURIComponent(s.channelId)}/`, {
        body: { text: 'connect me to a human' },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.reply, HANDOFF_EN);
      assert.equal(s.fake.to(COMPLETIONS).length, 0);
    });
  });
});
