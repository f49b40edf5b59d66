// Clarifying choices of the knowledge-base engine end to end over HTTP (docs/architecture.md, Clarifying choices):
// the numbered options through the API channel's webhook, a pick by number or by label, `0` handing off (also
// with handoffAfterFallbacks 0), a new question dropping the choice, an exact question never clarified, a
// clarification neither a fallback nor breaking a run of them, clarifyChoices 0, clarifyPrompt and the seven
// languages' defaults, distinct answers, and the channel fields' validation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { EventPage, WebhookEvent } from '@parley/contracts';
import { clarifyPromptText, fallbackText, handoffText, somethingElseText } from '../src/agent/agent-texts.ts';
import { eventually } from './support/events.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const ENTRIES = [
  { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
  { question: 'How much does shipping cost?', answer: 'Shipping is free above 50 euros, else 4.90 euros.' },
  { question: 'Do you ship abroad?', answer: 'We ship to every country of the European Union.' },
  { question: 'How do I return an item?', answer: 'Send it back within 30 days with the return label from your account.' },
  { question: 'Which payment methods do you accept?', answer: 'Cards, PayPal and bank transfer.' },
];
/** Not worded as any entry, close to the shipping ones: below the answer bar, above the clarifying one. */
const UNSURE = 'shipping';
/** The engine answers only exact questions: every other text with candidates is clarified. */
const ASK_ALWAYS = { kind: 'knowledge-base', answerThreshold: 1 };

type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;

describe('clarifying choices', { concurrency: true }, () => {
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    receiver = await startReceiver();
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  async function setUp(channel: Record<string, unknown> = {}, entries = ENTRIES) {
    const owner: User = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(owner.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    assert.equal(base.status, 201, base.text);
    const entryIds: string[] = [];
    for (const entry of entries) {
      const res = await t.console<{ id: string }>(owner.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: entry });
      assert.equal(res.status, 201, res.text);
      entryIds.push(res.body.id);
    }
    const created = await t.console<{ id: string; clarifyChoices: number; clarifyPrompt: string | null }>(owner.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Support', webhookUrl: `${receiver.url}/hook`, knowledgeBaseId: base.body.id, agentEngine: ASK_ALWAYS, ...channel },
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
    const hooks = (externalChatId: string) =>
      receiver.requests
        .filter((request) => request.url === '/hook')
        .map((request) => JSON.parse(request.body) as WebhookEvent & { chat: { uniqueId: string } })
        .filter((payload) => payload.chat.uniqueId === `${channelId}:${externalChatId}`);
    const replies = (externalChatId: string) => {
      const messages = hooks(externalChatId).flatMap((payload) => (payload.event === 'new_messages' ? payload.messages : []));
      const seen = new Set<string>();
      return messages.filter((m) => m.role === 'assistant' && !seen.has(m.id) && seen.add(m.id));
    };
    const nthReply = async (externalChatId: string, n: number) => (await eventually(async () => replies(externalChatId)[n - 1], 10_000)).text;
    const handedOff = async (externalChatId: string) => {
      const res = await t.api<EventPage>(owner.key, '/events', { limit: '1000' });
      assert.equal(res.status, 200, res.text);
      return res.body.events
        .map((event) => event.payload)
        .filter((p) => p.event === 'chat_handed_off' && p.chat.uniqueId === `${channelId}:${externalChatId}`);
    };
    const chatOf = async (externalChatId: string) => {
      const res = await t.console<{ chats: { chatId: string; paused: boolean; needsHuman: boolean }[] }>(owner.token, 'GET', '/chat/all-chats/', {
        query: { channelId },
      });
      const chat = res.body.chats.find((c) => c.chatId === externalChatId);
      assert.ok(chat);
      return chat;
    };
    return { owner, baseId: base.body.id, entryIds, channelId, channel: created.body, send, hooks, replies, nthReply, handedOff, chatOf };
  }

  /** The options of a clarification's text: its `<n>. <label>` lines, by number. */
  function optionsIn(text: string): Map<number, string> {
    const lines = text.split('\n').slice(1);
    return new Map(lines.map((line) => /^(\d)\. (.+)$/.exec(line)).map((m) => [Number(m?.[1]), m?.[2] ?? '']));
  }

  test('the reply lists distinct answers and 0; a pick by number sends the answer, and resets the fallbacks', async () => {
    const s = await setUp({ handoffAfterFallbacks: 2 });
    assert.equal(s.channel.clarifyChoices, 3);
    assert.equal(s.channel.clarifyPrompt, null);
    await s.send('c1', UNSURE);
    const asked = await s.nthReply('c1', 1);
    const lines = asked.split('\n');
    assert.equal(lines[0], 'Did you mean one of these?');
    assert.equal(lines.at(-1), '0. Something else');
    const options = optionsIn(asked);
    assert.deepEqual([...options.keys()], [1, 2, 3, 0]);
    for (const n of [1, 2, 3]) assert.ok(ENTRIES.some((e) => e.question === options.get(n)), `${options.get(n)} is an entry's question`);
    assert.ok([1, 2, 3].some((n) => options.get(n)?.includes('shipping')));
    // The webhook message stays the spec's object: the options are only the text.
    const [message] = s.replies('c1');
    assert.deepEqual(Object.keys(message ?? {}).sort(), ['attachments', 'createdAt', 'id', 'role', 'senderName', 'text'].sort());

    await s.send('c1', ' 2! ');
    const chosen = ENTRIES.find((e) => e.question === options.get(2));
    assert.equal(await s.nthReply('c1', 2), chosen?.answer);
    assert.deepEqual(await s.handedOff('c1'), []);
    // The overview counts the answer after a choice apart from direct answers (the clarification is neither).
    await s.send('c1', 'How do I return an item?');
    await s.nthReply('c1', 3);
    const overview = await t.console<{ agentReplies: Record<string, number> }>(s.owner.token, 'GET', '/overview/', { query: { days: '1' } });
    assert.equal(overview.status, 200, overview.text);
    assert.deepEqual(overview.body.agentReplies, { answered: 1, answeredAfterChoice: 1, fellBack: 0, handedOff: 0 });
  });

  test('a pick by label, case-insensitive; a passage-free base; a new question drops the choice', async () => {
    const s = await setUp();
    await s.send('c1', UNSURE);
    const options = optionsIn(await s.nthReply('c1', 1));
    const label = options.get(3) ?? '';
    await s.send('c1', label.toUpperCase());
    assert.equal(await s.nthReply('c1', 2), ENTRIES.find((e) => e.question === label)?.answer);

    await s.send('c2', UNSURE);
    await s.nthReply('c2', 1);
    // Not a pick: a new question, answered as such (here exactly an entry's question).
    await s.send('c2', 'Which payment methods do you accept?');
    assert.equal(await s.nthReply('c2', 2), 'Cards, PayPal and bank transfer.');
    // The choice is gone: a digit is now a new question (no candidate: the fallback).
    await s.send('c2', '1');
    assert.equal(await s.nthReply('c2', 3), fallbackText('en'));
  });

  test('0 or the last line hands the chat off (reason fallbacks), also when handoffAfterFallbacks is 0', async () => {
    const s = await setUp({ handoffAfterFallbacks: 0 });
    for (const [chat, pick] of [['c1', '0'], ['c2', 'something else']] as const) {
      await s.send(chat, UNSURE);
      await s.nthReply(chat, 1);
      await s.send(chat, pick);
      assert.equal(await s.nthReply(chat, 2), handoffText('en'));
      const events = await eventually(async () => {
        const all = await s.handedOff(chat);
        return all.length === 1 && all;
      });
      assert.equal(events[0]?.event === 'chat_handed_off' && events[0].reason, 'fallbacks');
      const listed = await eventually(async () => {
        const c = await s.chatOf(chat);
        return c.needsHuman && c;
      });
      assert.equal(listed.paused, true);
    }
  });

  test('an exact question is answered, never clarified; clarifyChoices 0 never asks', async () => {
    const s = await setUp();
    await s.send('c1', 'how long does SHIPPING take');
    assert.equal(await s.nthReply('c1', 1), 'Shipping takes 3 to 5 business days.');
    const never = await setUp({ clarifyChoices: 0, handoffAfterFallbacks: 0 });
    await never.send('c1', UNSURE);
    assert.equal(await never.nthReply('c1', 1), fallbackText('en'));
  });

  test('a clarification is no fallback and does not break a run of them', async () => {
    const s = await setUp({ handoffAfterFallbacks: 2 });
    await s.send('c1', 'zzz qqq');
    assert.equal(await s.nthReply('c1', 1), fallbackText('en'));
    await s.send('c1', UNSURE);
    assert.match(await s.nthReply('c1', 2), /^Did you mean one of these\?\n1\. /);
    // A new question with no candidate: the second fallback in a row (the clarification between them not counted).
    await s.send('c1', 'xyzzy plugh');
    assert.equal(await s.nthReply('c1', 3), handoffText('en'));
    const events = await eventually(async () => {
      const all = await s.handedOff('c1');
      return all.length === 1 && all;
    });
    assert.equal(events[0]?.event === 'chat_handed_off' && events[0].reason, 'fallbacks');
  });

  test('clarifyChoices caps the options; clarifyPrompt replaces the prompt; the defaults in seven languages', async () => {
    const s = await setUp({ clarifyChoices: 1, clarifyPrompt: 'Is it about this?' });
    await s.send('c1', UNSURE);
    const text = await s.nthReply('c1', 1);
    const lines = text.split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[0], 'Is it about this?');
    assert.match(lines[1] ?? '', /^1\. /);
    assert.equal(lines[2], '0. Something else');
    for (const lang of ['en', 'ru', 'de', 'fr', 'es', 'it', 'pt']) {
      const l = await setUp({ settings: { aiLang: lang } });
      await l.send('c1', UNSURE);
      const asked = (await l.nthReply('c1', 1)).split('\n');
      assert.equal(asked[0], clarifyPromptText(lang), lang);
      assert.equal(asked.at(-1), `0. ${somethingElseText(lang)}`, lang);
      assert.notEqual(clarifyPromptText(lang), lang === 'en' ? '' : clarifyPromptText('en'), lang);
    }
  });

  test('entries with the same answer are one option', async () => {
    const twice = [
      { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
      { question: 'What is the shipping time?', answer: 'Shipping takes 3 to 5 business days.' },
      { question: 'How much does shipping cost?', answer: 'Shipping is free above 50 euros, else 4.90 euros.' },
    ];
    const s = await setUp({}, twice);
    await s.send('c1', UNSURE);
    const options = optionsIn(await s.nthReply('c1', 1));
    const answers = [...options.entries()].filter(([n]) => n > 0).map(([, label]) => twice.find((e) => e.question === label)?.answer);
    assert.equal(new Set(answers).size, answers.length);
    assert.equal(answers.length, 2);
  });

  interface Entry {
    id: string;
    question: string;
    synonyms: string[];
    learnedQuestions: { id: string; text: string; picks: number }[];
  }
  async function entries(s: Awaited<ReturnType<typeof setUp>>, as: User = s.owner) {
    const res = await t.console<{ entries: Entry[] }>(as.token, 'GET', `/knowledge-bases/${s.baseId}/entries`);
    assert.equal(res.status, 200, res.text);
    return res.body.entries;
  }

  test('each pick keeps the question as a learned phrasing of the entry; Keep moves it into synonyms, Discard drops it', async () => {
    const s = await setUp();
    const first = await setUp();
    assert.ok((await entries(first)).every((e) => e.learnedQuestions.length === 0));
    // Two customers ask the same way and pick the same entry; a third asks otherwise.
    const pickEntry = async (chat: string, text: string, question: string) => {
      await s.send(chat, text);
      const options = optionsIn(await s.nthReply(chat, 1));
      const n = [...options.entries()].find(([, label]) => label === question)?.[0];
      assert.ok(n, `${question} offered for ${text}`);
      await s.send(chat, String(n));
      await s.nthReply(chat, 2);
    };
    await pickEntry('a', 'shipping', 'How much does shipping cost?');
    await pickEntry('b', 'Shipping!', 'How much does shipping cost?');
    await pickEntry('c', 'shipping', 'Do you ship abroad?');
    const learned = await eventually(async () => {
      const all = await entries(s);
      const cost = all.find((e) => e.question === 'How much does shipping cost?');
      return cost?.learnedQuestions[0]?.picks === 2 && all;
    });
    const cost = learned.find((e) => e.question === 'How much does shipping cost?') as Entry;
    const abroad = learned.find((e) => e.question === 'Do you ship abroad?') as Entry;
    assert.deepEqual(cost.learnedQuestions.map(({ text, picks }) => ({ text, picks })), [{ text: 'shipping', picks: 2 }]);
    assert.deepEqual(abroad.learnedQuestions.map(({ text, picks }) => ({ text, picks })), [{ text: 'shipping', picks: 1 }]);
    assert.deepEqual(learned.find((e) => e.question === 'How long does shipping take?')?.learnedQuestions, []);

    // Another account: 404 for both, nothing changed.
    const intruder = await t.createConsoleUser();
    const path = `/knowledge-bases/${s.baseId}/entries/${cost.id}/learned/${cost.learnedQuestions[0]?.id}`;
    const notFound = { message: 'Learned question not found', statusCode: 404 };
    assert.deepEqual((await t.console(intruder.token, 'POST', `${path}/keep`)).body, notFound);
    assert.equal((await t.console(intruder.token, 'POST', `${path}/keep`)).status, 404);
    assert.equal((await t.console(intruder.token, 'DELETE', path)).status, 404);
    // The wrong entry in the path: 404 too.
    const wrong = `/knowledge-bases/${s.baseId}/entries/${abroad.id}/learned/${cost.learnedQuestions[0]?.id}`;
    assert.equal((await t.console(s.owner.token, 'DELETE', wrong)).status, 404);

    const kept = await t.console<Entry>(s.owner.token, 'POST', `${path}/keep`);
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.body.synonyms, ['shipping']);
    assert.deepEqual(kept.body.learnedQuestions, []);
    assert.equal((await t.console(s.owner.token, 'POST', `${path}/keep`)).status, 404);
    // Kept, the phrasing is the entry's own: the next customer asking so gets the answer directly.
    await s.send('d', 'shipping');
    assert.equal(await s.nthReply('d', 1), 'Shipping is free above 50 euros, else 4.90 euros.');

    const discardPath = `/knowledge-bases/${s.baseId}/entries/${abroad.id}/learned/${abroad.learnedQuestions[0]?.id}`;
    const discarded = await t.console(s.owner.token, 'DELETE', discardPath);
    assert.equal(discarded.status, 200, discarded.text);
    assert.deepEqual(discarded.body, { success: true });
    assert.equal((await t.console(s.owner.token, 'DELETE', discardPath)).status, 404);
    const after = (await entries(s)).find((e) => e.id === abroad.id);
    assert.deepEqual(after?.learnedQuestions, []);
    assert.deepEqual(after?.synonyms, []);
  });

  test('channel fields: validated, updated, shown', async () => {
    const s = await setUp();
    for (const body of [{ clarifyChoices: 6 }, { clarifyChoices: -1 }, { clarifyChoices: 1.5 }, { clarifyPrompt: '' }, { clarifyPrompt: 'x'.repeat(501) }]) {
      const res = await t.console(s.owner.token, 'PUT', `/channel/custom/${encodeURIComponent(s.channelId)}/`, { body });
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    const res = await t.console<{ clarifyChoices: number; clarifyPrompt: string | null }>(s.owner.token, 'PUT', `/channel/custom/${encodeURIComponent(s.channelId)}/`, {
      body: { clarifyChoices: 5, clarifyPrompt: 'Which one?' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.clarifyChoices, 5);
    assert.equal(res.body.clarifyPrompt, 'Which one?');
    const cleared = await t.console<{ clarifyPrompt: string | null }>(s.owner.token, 'PUT', `/channel/custom/${encodeURIComponent(s.channelId)}/`, { body: { clarifyPrompt: null } });
    assert.equal(cleared.body.clarifyPrompt, null);
  });
});
