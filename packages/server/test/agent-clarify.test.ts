// Clarifying choices of the knowledge-base engine end to end over HTTP (docs/architecture.md, Clarifying choices):
// the numbered options through the API channel's webhook, a pick by number or by label, `0` handing off (also
// with handoffAfterFallbacks 0), a new question dropping the choice, an exact question never clarified, a question
// worded as a synonym of two entries clarified between them, a question no entry is plausible for falling back, a
// menu ignored counting as a fallback (and reaching Gaps), clarifyChoices 0, clarifyPrompt and the seven languages'
// defaults, distinct answers, learned phrasings (customers, competing entries, a kept one answered only while
// unambiguous), and the channel fields' validation.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { EventPage, WebhookEvent } from '@parley/contracts';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { clarifyPromptText, fallbackText, handoffText, somethingElseText } from '../src/agent/agent-texts.ts';
import { withAuditEventsRefused } from './support/audit-refusal.ts';
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
/** Not worded as any entry, close to the shipping ones: below the answer bar, above the clarifying ones. */
const UNSURE = 'shipping cost';
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

  async function setUp(channel: Record<string, unknown> = {}, entries: { question: string; synonyms?: string[]; answer: string }[] = ENTRIES) {
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
    const nthReply = async (externalChatId: string, n: number) => (await eventually(async () => replies(externalChatId)[n - 1], 30_000)).text;
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
    // The overview counts the answer after a choice apart from direct answers, and the clarification beside them.
    await s.send('c1', 'How do I return an item?');
    await s.nthReply('c1', 3);
    const overview = await t.console<{ agentReplies: Record<string, number> }>(s.owner.token, 'GET', '/overview/', { query: { days: '1' } });
    assert.equal(overview.status, 200, overview.text);
    assert.deepEqual(overview.body.agentReplies, { answered: 1, answeredAfterChoice: 1, clarified: 1, fellBack: 0, handedOff: 0 });
  });

  test("the console's Try the agent: a clarification's options as `choices`, then a pick, a 0 or a new question answering it (clarifiedQuestion)", async () => {
    const s = await setUp({ handoffAfterFallbacks: 2, handoffMessage: 'A person will take over.' });
    type Tried = { reply: string | null; taskComplete: boolean; summary: string | null; passages: unknown[]; choices?: string[] };
    const tryAgent = async (body: Record<string, unknown>) => {
      const res = await t.console<Tried>(s.owner.token, 'POST', `/chat/test/${encodeURIComponent(s.channelId)}/`, { body });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const asked = await tryAgent({ text: UNSURE });
    const options = optionsIn(asked.reply ?? '');
    assert.deepEqual(asked.choices, [options.get(1), options.get(2), options.get(3), 'Something else']);
    assert.match(asked.reply ?? '', /^Did you mean one of these\?\n1\. /);
    // A pick by number answers with that option's entry, offering nothing more.
    const picked = await tryAgent({ text: '2', clarifiedQuestion: UNSURE });
    assert.deepEqual(picked, { reply: ENTRIES.find((e) => e.question === asked.choices?.[1])?.answer, taskComplete: false, summary: null, passages: [] });
    // By label too; `0` hands off (the handoff message); a new question is answered as one.
    assert.equal((await tryAgent({ text: asked.choices?.[0]?.toUpperCase(), clarifiedQuestion: UNSURE })).reply, ENTRIES.find((e) => e.question === asked.choices?.[0])?.answer);
    assert.equal((await tryAgent({ text: '0', clarifiedQuestion: UNSURE })).reply, 'A person will take over.');
    assert.equal((await tryAgent({ text: 'Do you ship abroad?', clarifiedQuestion: UNSURE })).reply, 'We ship to every country of the European Union.');
    // Without the question, a `2` is a message of its own (no clarification is remembered between calls).
    assert.notEqual((await tryAgent({ text: '2' })).reply, picked.reply);
    // Nothing was stored: no chat.
    const chats = await t.console<{ chats: unknown[] }>(s.owner.token, 'GET', '/chat/all-chats/', { query: { channelId: s.channelId } });
    assert.deepEqual(chats.body.chats, []);
    const bad = await t.console(s.owner.token, 'POST', `/chat/test/${encodeURIComponent(s.channelId)}/`, { body: { text: '1', clarifiedQuestion: '' } });
    assert.equal(bad.status, 400, bad.text);
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

  test('a menu ignored and followed by no answer counts as a fallback: handed off at the second; its question and the 0 reach Gaps', async () => {
    const s = await setUp({ handoffAfterFallbacks: 2 });
    // A menu, then a new question with no candidate: the ignored menu is the first fallback, so this is the second.
    await s.send('c1', UNSURE);
    assert.match(await s.nthReply('c1', 1), /^Did you mean one of these\?\n1\. /);
    await s.send('c1', 'xyzzy plugh');
    assert.equal(await s.nthReply('c1', 2), handoffText('en'));
    const events = await eventually(async () => {
      const all = await s.handedOff('c1');
      return all.length === 1 && all;
    });
    assert.equal(events[0]?.event === 'chat_handed_off' && events[0].reason, 'fallbacks');

    // A fallback, then a menu: not yet two fallbacks in a row (the menu may still be picked)…
    await s.send('c2', 'zzz qqq');
    assert.equal(await s.nthReply('c2', 1), fallbackText('en'));
    await s.send('c2', UNSURE);
    assert.match(await s.nthReply('c2', 2), /^Did you mean one of these\?\n1\. /);
    // …and a pick resets the run: the next unanswerable question is a first fallback again.
    await s.send('c2', '1');
    await s.nthReply('c2', 3);
    await s.send('c2', 'xyzzy plugh');
    assert.equal(await s.nthReply('c2', 4), fallbackText('en'));
    assert.deepEqual(await s.handedOff('c2'), []);

    // Menus ignored one after the other: the second ignored one is the second fallback, so no third menu.
    await s.send('c3', UNSURE);
    await s.nthReply('c3', 1);
    await s.send('c3', 'How much for shipping?');
    assert.match(await s.nthReply('c3', 2), /^Did you mean one of these\?\n1\. /);
    await s.send('c3', 'shipping costs');
    assert.equal(await s.nthReply('c3', 3), handoffText('en'));

    // With handoffAfterFallbacks 0 an ignored menu hands nothing off, but the question still reaches Gaps.
    const never = await setUp({ handoffAfterFallbacks: 0 });
    await never.send('g1', 'cost of shipping');
    await never.nthReply('g1', 1);
    await never.send('g1', 'xyzzy plugh');
    assert.equal(await never.nthReply('g1', 2), fallbackText('en'));
    await never.send('g2', 'what does shipping cost');
    await never.nthReply('g2', 1);
    await never.send('g2', '0');
    assert.equal(await never.nthReply('g2', 2), handoffText('en'));
    const gaps = await t.console<{ gaps: { examples: string[] }[] }>(never.owner.token, 'GET', `/knowledge-bases/${never.baseId}/gaps`);
    assert.equal(gaps.status, 200, gaps.text);
    const examples = gaps.body.gaps.flatMap((gap) => gap.examples).sort();
    assert.deepEqual(examples, ['cost of shipping', 'what does shipping cost', 'xyzzy plugh'].sort());
    // The first setUp's chats: the ignored menus' questions and the unanswered ones (a pick and its menu are none).
    const first = await t.console<{ gaps: { examples: string[] }[] }>(s.owner.token, 'GET', `/knowledge-bases/${s.baseId}/gaps`);
    const firstExamples = first.body.gaps.flatMap((gap) => gap.examples);
    for (const text of [UNSURE, 'How much for shipping?', 'xyzzy plugh', 'zzz qqq']) assert.ok(firstExamples.includes(text), `${text} in ${JSON.stringify(firstExamples)}`);
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

  interface Learned {
    id: string;
    text: string;
    picks: number;
    customers: number;
    competing: { entryId: string; question: string }[];
  }
  interface Entry {
    id: string;
    question: string;
    synonyms: string[];
    learnedQuestions: Learned[];
  }
  async function entries(s: Awaited<ReturnType<typeof setUp>>, as: User = s.owner) {
    const res = await t.console<{ entries: Entry[] }>(as.token, 'GET', `/knowledge-bases/${s.baseId}/entries`);
    assert.equal(res.status, 200, res.text);
    return res.body.entries;
  }
  /** Asks `text` in the chat and picks the option labelled `question`. */
  async function pickEntry(s: Awaited<ReturnType<typeof setUp>>, chat: string, text: string, question: string) {
    const before = s.replies(chat).length;
    await s.send(chat, text);
    const options = optionsIn(await s.nthReply(chat, before + 1));
    const n = [...options.entries()].find(([, label]) => label === question)?.[0];
    assert.ok(n, `${question} offered for ${text}`);
    await s.send(chat, String(n));
    await s.nthReply(chat, before + 2);
  }
  /** The channel's engine with the shipped answer threshold (setUp's answers only exact questions). */
  async function shippedThreshold(s: Awaited<ReturnType<typeof setUp>>) {
    const res = await t.console(s.owner.token, 'PUT', `/channel/custom/${encodeURIComponent(s.channelId)}/`, { body: { agentEngine: { kind: 'knowledge-base' } } });
    assert.equal(res.status, 200, res.text);
  }

  test('each pick keeps the question as a learned phrasing, with its customers and competing entries; Keep moves it into synonyms, Discard drops it', async () => {
    const s = await setUp();
    const first = await setUp();
    assert.ok((await entries(first)).every((e) => e.learnedQuestions.length === 0));
    // Two customers ask the same way and pick the same entry (one of them twice); a third picks another entry.
    await pickEntry(s, 'a', 'shipping cost', 'How much does shipping cost?');
    await pickEntry(s, 'b', 'Shipping cost!', 'How much does shipping cost?');
    await pickEntry(s, 'a', 'shipping cost', 'How much does shipping cost?');
    await pickEntry(s, 'c', 'shipping cost', 'Do you ship abroad?');
    const learned = await eventually(async () => {
      const all = await entries(s);
      const cost = all.find((e) => e.question === 'How much does shipping cost?');
      return cost?.learnedQuestions[0]?.picks === 3 && all;
    });
    const cost = learned.find((e) => e.question === 'How much does shipping cost?') as Entry;
    const abroad = learned.find((e) => e.question === 'Do you ship abroad?') as Entry;
    // Customers chose the other entry for the same words: it competes (and no other entry does, the words are cost's).
    assert.deepEqual(
      cost.learnedQuestions.map(({ text, picks, customers, competing }) => ({ text, picks, customers, competing })),
      [{ text: 'shipping cost', picks: 3, customers: 2, competing: [{ entryId: abroad.id, question: 'Do you ship abroad?' }] }],
    );
    const [abroadLearned] = abroad.learnedQuestions;
    assert.deepEqual([abroadLearned?.text, abroadLearned?.picks, abroadLearned?.customers], ['shipping cost', 1, 1]);
    // Worded as cost's own question, the phrasing is as close to cost as to abroad even kept: cost competes, first.
    assert.deepEqual(abroadLearned?.competing[0], { entryId: cost.id, question: 'How much does shipping cost?' });
    assert.ok(!abroadLearned?.competing.some((c) => c.entryId === abroad.id));
    assert.deepEqual(learned.find((e) => e.question === 'How long does shipping take?')?.learnedQuestions, []);
    // Migration 0031 counts the customers of picks made before it from the stored clarifications and their answers.
    const migration = await readFile(new URL('../drizzle/0031_learned_phrasings.sql', import.meta.url), 'utf8');
    const backfill = migration.split('--> statement-breakpoint').find((part) => part.includes('INSERT INTO')) ?? '';
    const ids = [...cost.learnedQuestions, ...abroad.learnedQuestions].map((q) => q.id);
    const customers = sql`SELECT learned_question_id AS id, count(*)::int AS n FROM knowledge_learned_question_chats
      WHERE learned_question_id IN (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)}) GROUP BY 1 ORDER BY 2`;
    const counted = await queryRows<{ id: string; n: number }>(t.database.db, customers);
    await t.database.db.execute(sql`DELETE FROM knowledge_learned_question_chats WHERE learned_question_id IN (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})`);
    await t.database.db.execute(sql.raw(backfill));
    assert.deepEqual(await queryRows<{ id: string; n: number }>(t.database.db, customers), counted);
    assert.deepEqual(counted.map((row) => row.n), [1, 2]);

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

    await shippedThreshold(s);
    // Kept, marked and audited in one transaction: with the entry's event refused, the phrasing still waits.
    await withAuditEventsRefused(t.database.db, "new.kind = 'knowledge_entry.updated'", async () => {
      assert.equal((await t.console(s.owner.token, 'POST', `${path}/keep`)).status, 500);
    });
    const waiting = (await entries(s)).find((e) => e.id === cost.id);
    assert.deepEqual([waiting?.synonyms, waiting?.learnedQuestions.map((q) => q.text)], [[], ['shipping cost']]);
    const kept = await t.console<Entry>(s.owner.token, 'POST', `${path}/keep`);
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.body.synonyms, ['shipping cost']);
    assert.deepEqual(kept.body.learnedQuestions, []);
    // The team's change to the entry, in the audit log as the member's.
    const audit = await t.console<{ events: { actor: { kind: string }; kind: string; target: { id: string }; changes: unknown }[] }>(
      s.owner.token,
      'GET',
      '/audit?kind=knowledge_entry.updated',
    );
    assert.equal(audit.status, 200, audit.text);
    assert.deepEqual(
      audit.body.events.map(({ actor, kind, target, changes }) => ({ actor: actor.kind, kind, target: target.id, changes })),
      [{ actor: 'member', kind: 'knowledge_entry.updated', target: cost.id, changes: { synonyms: [[], ['shipping cost']] } }],
    );
    assert.equal((await t.console(s.owner.token, 'POST', `${path}/keep`)).status, 404);
    assert.equal((await t.console(s.owner.token, 'DELETE', path)).status, 404);
    // Kept, but customers chose another entry for it too: a choice between the two, not a direct answer.
    await s.send('d', 'shipping cost');
    const between = await s.nthReply('d', 1);
    assert.deepEqual([...optionsIn(between).entries()], [[1, 'How much does shipping cost?'], [2, 'Do you ship abroad?'], [0, 'Something else']]);

    const discardPath = `/knowledge-bases/${s.baseId}/entries/${abroad.id}/learned/${abroadLearned?.id}`;
    const discarded = await t.console(s.owner.token, 'DELETE', discardPath);
    assert.equal(discarded.status, 200, discarded.text);
    assert.deepEqual(discarded.body, { success: true });
    assert.equal((await t.console(s.owner.token, 'DELETE', discardPath)).status, 404);
    const after = (await entries(s)).find((e) => e.id === abroad.id);
    assert.deepEqual(after?.learnedQuestions, []);
    assert.deepEqual(after?.synonyms, []);
    // Unambiguous now: the next customer asking so gets the kept entry's answer directly.
    await s.send('e', 'shipping cost');
    assert.equal(await s.nthReply('e', 1), 'Shipping is free above 50 euros, else 4.90 euros.');

    // Taken out of the synonyms by the team and chosen again: it waits for the team again, its counts kept.
    const edited = await t.console(s.owner.token, 'PUT', `/knowledge-bases/${s.baseId}/entries/${cost.id}`, { body: { synonyms: [] } });
    assert.equal(edited.status, 200, edited.text);
    const asking = await t.console(s.owner.token, 'PUT', `/channel/custom/${encodeURIComponent(s.channelId)}/`, { body: { agentEngine: ASK_ALWAYS } });
    assert.equal(asking.status, 200, asking.text);
    await pickEntry(s, 'f', 'shipping cost', 'How much does shipping cost?');
    const again = await eventually(async () => (await entries(s)).find((e) => e.id === cost.id && e.learnedQuestions.length === 1));
    assert.deepEqual(again.learnedQuestions.map(({ text, picks, customers }) => ({ text, picks, customers })), [{ text: 'shipping cost', picks: 4, customers: 3 }]);
  });

  test('a kept phrasing as close to another entry is clarified, not answered; a synonym of two entries is a choice between them', async () => {
    const s = await setUp();
    // Customers chose abroad for words that are cost's question: kept, it would mislead, so it stays a choice.
    await pickEntry(s, 'a', 'shipping cost', 'Do you ship abroad?');
    const abroad = await eventually(async () => (await entries(s)).find((e) => e.question === 'Do you ship abroad?' && e.learnedQuestions.length === 1));
    const cost = (await entries(s)).find((e) => e.question === 'How much does shipping cost?') as Entry;
    assert.ok(abroad.learnedQuestions[0]?.competing.some((c) => c.entryId === cost.id && c.question === cost.question));
    await shippedThreshold(s);
    const kept = await t.console<Entry>(s.owner.token, 'POST', `/knowledge-bases/${s.baseId}/entries/${abroad.id}/learned/${abroad.learnedQuestions[0]?.id}/keep`);
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.body.synonyms, ['shipping cost']);
    await s.send('b', 'shipping cost');
    const options = optionsIn(await s.nthReply('b', 1));
    assert.equal(options.get(1), 'Do you ship abroad?');
    assert.ok([...options.values()].includes('How much does shipping cost?'));

    // The same synonym written on two entries with different answers: a choice between exactly those two.
    const twice = await setUp({ agentEngine: { kind: 'knowledge-base' } }, [
      { question: 'How long does shipping take?', synonyms: ['delivery details'], answer: 'Shipping takes 3 to 5 business days.' },
      { question: 'How much does shipping cost?', synonyms: ['delivery details'], answer: 'Shipping is free above 50 euros, else 4.90 euros.' },
      { question: 'How do I return an item?', answer: 'Send it back within 30 days with the return label from your account.' },
    ]);
    await twice.send('c', 'Delivery details?');
    assert.deepEqual(
      [...optionsIn(await twice.nthReply('c', 1)).values()].sort(),
      ['How long does shipping take?', 'How much does shipping cost?', 'Something else'].sort(),
    );
    // Worded as one entry's question: answered directly, never clarified.
    await twice.send('d', 'How do I return an item');
    assert.equal(await twice.nthReply('d', 1), 'Send it back within 30 days with the return label from your account.');
  });

  test('a question no entry is plausible for gets the fallback, not a menu of unrelated entries', async () => {
    const s = await setUp({ handoffAfterFallbacks: 0 });
    // It shares a word with the payment entry, but most of it is unknown to the base.
    await s.send('c1', 'can I pay with bitcoin');
    assert.equal(await s.nthReply('c1', 1), fallbackText('en'));
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
