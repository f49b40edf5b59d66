// A knowledge base's documents in the agent's answers, end to end: the owner drops a returns-policy PDF into the
// base, a customer asks about returns through the public API, and the openai-compatible engine's request to a real
// local model server (recording the prompt) carries the passage that holds the answer, with its source, and the
// instruction to answer only from what it was given; the reply is the model's. Passages are ranked apart from the
// entries (which are still given), embedded by the base's provider when it has one, and gone once the document is
// deleted; the knowledge-base engine answers directly with entries alone and offers passages as clarifying choices
// (a pick sends the passage's text with its document's name: labels and text that read well, even from a text file
// with no headings, Markdown left in it and more than 700 characters); `Try the agent` shows the passages given.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NewMessagesEvent, WebhookEvent } from '@parley/contracts';
import { sql } from 'drizzle-orm';
import { fallbackText } from '../src/agent/agent-texts.ts';
import { queryRows } from '../src/db/client.ts';
import { RETURNS_POLICY_PASSAGES, returnsPolicyPdf } from './support/documents.ts';
import { eventually } from './support/events.ts';
import { startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.ts';
import { reply, startFakeLlm, type FakeLlm, type LlmRequest } from './support/fake-llm.ts';
import { startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const COMPLETIONS = '/v1/chat/completions';
const ANSWER_ONLY =
  'Answer questions about the business only from these passages and the entries above, never from your own knowledge. ' +
  'When they do not cover the question, do not guess: call the hand_off tool.';
/**
 * How long a document may take to be parsed and a reply to come: the file's four tests run at once, beside other test
 * files, and their parses share the parser's workers and the job queue with the encoder's jobs (a CI run saw one of
 * four PDFs not ready after 60 s while the others were). A wait ends as soon as its condition holds.
 */
const SETTLE_MS = 150_000;

type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;
interface Given {
  document: string;
  headingPath: string[];
  text: string;
}

/** The passage of the returns policy under this section heading, as the model is given it. */
const passage = (heading: string): Given => {
  const found = RETURNS_POLICY_PASSAGES.find((p) => p.headingPath.at(-1) === heading);
  assert.ok(found, heading);
  return { document: 'returns-policy.pdf', headingPath: found.headingPath, text: found.text };
};
const inPrompt = (given: Given, n: number) => `[${n}] ${[given.document, ...given.headingPath].join(' › ')}\n${given.text}`;

function systemPrompt(request: LlmRequest | undefined): string {
  assert.ok(request, 'the model server got the request');
  const messages = (request.json as { messages: { role: string; content: string }[] }).messages;
  assert.equal(messages[0]?.role, 'system');
  return String(messages[0]?.content);
}

describe('documents in the agent\'s answers', { concurrency: true }, () => {
  let t: TestApp;
  let embeddings: FakeEmbeddings;
  const closers: (() => Promise<void>)[] = [];
  before(async () => {
    // Run from the sources, a parse of the returns policy grows the process by 200-300 MB (PDF.js and its
    // transpiling; far less built): two at once passed the machine's 512 MB budget in CI runs, which failed their
    // documents. The budget is parser-memory.test.ts's subject, not this file's.
    t = await startTestApp({ webhookAllowPrivateNetworks: true, parserMaxMemoryMb: 4096 });
    embeddings = await startFakeEmbeddings();
  });
  after(async () => {
    await t.close();
    await embeddings.close();
    await Promise.all(closers.map((close) => close()));
  });

  async function fakeLlm(): Promise<FakeLlm> {
    const fake = await startFakeLlm();
    closers.push(() => fake.close());
    return fake;
  }
  async function receiver(): Promise<Receiver> {
    const r = await startReceiver();
    closers.push(() => r.close());
    return r;
  }

  /** A base with the returns policy uploaded (ready) and an entry; its base id and the document's id. */
  async function baseWithPolicy(user: User, body: Record<string, unknown> = {}) {
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Shop', ...body } });
    assert.equal(base.status, 201, base.text);
    const entry = await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, {
      body: { question: 'What are your opening hours?', answer: 'We are open from 10:00 to 22:00 every day.' },
    });
    assert.equal(entry.status, 201, entry.text);
    const form = new FormData();
    form.append('file', new Blob([returnsPolicyPdf()], { type: 'application/pdf' }), 'returns-policy.pdf');
    const res = await fetch(`${t.url}/console/v1/knowledge-bases/${base.body.id}/documents`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
    assert.equal(res.status, 201);
    const { id } = (await res.json()) as { id: string };
    let seen: unknown;
    await eventually(async () => {
      const list = await t.console<{ documents: { id: string; status: string; error?: string }[] }>(user.token, 'GET', `/knowledge-bases/${base.body.id}/documents`);
      const doc = list.body.documents.find((d) => d.id === id);
      seen = doc;
      // A document that failed will never be ready: say why at once rather than wait out the time.
      assert.notEqual(doc?.status, 'failed', `the document failed: ${JSON.stringify(doc)}`);
      return doc?.status === 'ready' && doc;
    }, SETTLE_MS).catch((error: unknown) => {
      throw new Error(`the document was not ready in time: ${JSON.stringify(seen)}`, { cause: error });
    });
    return { baseId: base.body.id, documentId: id };
  }

  async function channel(user: User, baseId: string, agentEngine: Record<string, unknown>, webhookUrl?: string): Promise<string> {
    const res = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Shop', knowledgeBaseId: baseId, agentEngine, settings: { role: 'the support agent of a clothing shop', aiLang: 'en' }, ...(webhookUrl ? { webhookUrl } : {}) },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  }

  /** A customer's chat on a channel: `send` a message through the public API; `nth` agent reply (1-based) at the webhook. */
  function customerChat(user: User, channelId: string, externalChatId: string, r: Receiver) {
    const send = async (text: string) => {
      const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId, externalChatId, role: 'user', text },
      });
      assert.equal(sent.status, 201, sent.text);
    };
    const nth = (n: number) =>
      eventually(async () => {
        const texts = r.requests
          .map((request) => JSON.parse(request.body) as WebhookEvent)
          .flatMap((event) => (event.event === 'new_messages' ? event.messages : []))
          .filter((m) => m.role === 'assistant')
          .map((m) => m.text);
        return [...new Set(texts)][n - 1];
      }, 20_000);
    return { send, nth };
  }

  const tryAgent = async (user: User, channelId: string, text: string) => {
    const res = await t.console<{ reply: string | null; passages: Given[] }>(user.token, 'POST', `/chat/test/${channelId}/`, { body: { text } });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  test('a customer asks about returns: the model is given the returns passage with its source and answers from it', async () => {
    const user = await t.createConsoleUser();
    const { baseId } = await baseWithPolicy(user);
    const fake = await fakeLlm();
    const r = await receiver();
    const channelId = await channel(user, baseId, { kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'test-model', timeoutSeconds: 10 }, r.url);
    fake.script(COMPLETIONS, reply.text('You have 30 days from delivery to return an unworn item.'));

    const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: user.key },
      body: { channel: 'custom', channelId, externalChatId: 'returns-1', role: 'user', text: 'How many days do I have to return an item?' },
    });
    assert.equal(sent.status, 201, sent.text);
    const answered = await eventually(
      async () =>
        r.requests
          .map((request) => JSON.parse(request.body) as WebhookEvent)
          .find((event): event is NewMessagesEvent => event.event === 'new_messages' && event.messages[0]?.role === 'assistant'),
      20_000,
    );
    assert.equal(answered.messages[0]?.text, 'You have 30 days from delivery to return an unworn item.');

    assert.equal(fake.to(COMPLETIONS).length, 1);
    const prompt = systemPrompt(fake.to(COMPLETIONS)[0]);
    // The passage that holds the answer comes first, with its document and headings; the instruction closes the prompt.
    assert.ok(prompt.includes(`Passages from the team's documents, each with its source (document › headings):\n${inPrompt(passage('Returning an item'), 1)}\n`), prompt);
    assert.ok(prompt.endsWith(`\n${ANSWER_ONLY}`), prompt);
    // The entries are still given, before the passages.
    assert.ok(prompt.indexOf('Q: What are your opening hours?') < prompt.indexOf('Passages from'), prompt);
    const given = prompt.match(/^\[\d\] /gm) ?? [];
    assert.ok(given.length >= 1 && given.length <= 4, `${given.length} passages given`);
  });

  test('Try the agent shows the passages given; a question no document touches gets none and no instruction', async () => {
    const user = await t.createConsoleUser();
    const { baseId, documentId } = await baseWithPolicy(user);
    const fake = await fakeLlm();
    const channelId = await channel(user, baseId, { kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'test-model', timeoutSeconds: 10 });
    fake.script(COMPLETIONS, reply.text('Earrings are final sale, sorry.'));

    const answer = await tryAgent(user, channelId, 'Can I return earrings?');
    assert.equal(answer.reply, 'Earrings are final sale, sorry.');
    assert.deepEqual(answer.passages[0], passage('Final sale'));
    assert.ok(answer.passages.length <= 4);
    // What the console shows is what the model was given, in the same order.
    const prompt = systemPrompt(fake.to(COMPLETIONS).at(-1));
    answer.passages.forEach((given, i) => assert.ok(prompt.includes(inPrompt(given, i + 1)), `${i}: ${prompt}`));

    const unrelated = await tryAgent(user, channelId, 'Is there parking near you?');
    assert.deepEqual(unrelated.passages, []);
    assert.ok(!systemPrompt(fake.to(COMPLETIONS).at(-1)).includes('Passages from'));

    // Deleted, the document's passages are given no more.
    assert.equal((await t.console(user.token, 'DELETE', `/knowledge-bases/${baseId}/documents/${documentId}`)).status, 200);
    const after = await tryAgent(user, channelId, 'Can I return earrings?');
    assert.deepEqual(after.passages, []);
    assert.ok(!systemPrompt(fake.to(COMPLETIONS).at(-1)).includes('returns-policy.pdf'));
  });

  test('the knowledge-base engine offers a passage as a choice (never answers with it directly); a pick sends its text and document', async () => {
    const user = await t.createConsoleUser();
    const { baseId } = await baseWithPolicy(user);
    const r = await receiver();
    const channelId = await channel(user, baseId, { kind: 'knowledge-base' }, r.url);
    const asked = await tryAgent(user, channelId, 'Are earrings final sale?');
    assert.deepEqual(asked.passages, []);
    const lines = (asked.reply ?? '').split('\n');
    assert.equal(lines[0], 'Did you mean one of these?');
    assert.ok(lines.includes('1. Final sale (returns-policy.pdf)'), asked.reply ?? '');
    assert.equal(lines.at(-1), '0. Something else');
    const hours = await tryAgent(user, channelId, 'What are your opening hours?');
    assert.equal(hours.reply, 'We are open from 10:00 to 22:00 every day.');

    const { send, nth } = customerChat(user, channelId, 'earrings', r);
    await send('Are earrings final sale?');
    assert.equal(await nth(1), asked.reply);
    await send('1');
    // The passage: its heading and text (at most 700 characters), then its document's name.
    const finalSale = passage('Final sale');
    assert.equal(await nth(2), `Final sale\n${finalSale.text} — from returns-policy.pdf`);

    // clarifyChoices 0: entries alone answer, a question only a document answers gets the fallback.
    assert.equal((await t.console(user.token, 'PUT', `/channel/custom/${encodeURIComponent(channelId)}/`, { body: { clarifyChoices: 0 } })).status, 200);
    assert.equal((await tryAgent(user, channelId, 'Are earrings final sale?')).reply, fallbackText('en'));
  });

  test('a passage without a heading: its first sentence cut at a clause is the label, a pick sends readable text cut at a sentence', async () => {
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Care', language: 'en' } });
    assert.equal(base.status, 201, base.text);
    // A text file as a shop writes one: no heading, Markdown marks, a list, more than 700 characters in one passage.
    const guide = [
      'Caring for wool, cotton and linen clothes so that they last for many seasons starts with washing them cold, inside out and by hand.',
      '',
      '* Wash **cold**, at 30 °C at most',
      '* Dry flat, away from the sun',
      '* Iron wool on the _lowest_ setting, through a damp cloth',
      '',
      'Wool needs the gentlest care of all: a wool detergent, no fabric softener and no tumble dryer. Cotton can go in the machine on a ' +
        'gentle cycle, e.g. the one for delicates, and linen is best ironed while still a little damp. Stains come out with cold water ' +
        'and a drop of detergent; never rub, dab them. See [our washing guide](https://shop.example/care) for every fabric we sell.',
      '',
      'Knitwear that has lost its shape can be washed again and dried flat on a towel, pulled gently back to its measurements. Moths ' +
        'stay away from clean wool kept in a closed drawer with cedar wood.',
    ].join('\n');
    const form = new FormData();
    form.append('file', new Blob([guide], { type: 'text/plain' }), 'care-guide.txt');
    const res = await fetch(`${t.url}/console/v1/knowledge-bases/${base.body.id}/documents`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
    assert.equal(res.status, 201);
    await eventually(async () => {
      const list = await t.console<{ documents: { status: string; passages: number }[] }>(user.token, 'GET', `/knowledge-bases/${base.body.id}/documents`);
      return list.body.documents[0]?.status === 'ready' && list.body.documents[0].passages === 1;
    }, SETTLE_MS);
    const r = await receiver();
    const channelId = await channel(user, base.body.id, { kind: 'knowledge-base' }, r.url);
    const { send, nth } = customerChat(user, channelId, 'care', r);

    await send('How do I wash wool clothes and linen?');
    // The first sentence, cut at its last comma within 80 characters: never mid-word, never mid-clause.
    assert.equal(await nth(1), 'Did you mean one of these?\n1. Caring for wool, cotton and linen clothes so that they last for many seasons… (care-guide.txt)\n0. Something else');
    await send('1');
    // Readable text: no Markdown marks, one item a line; whole sentences within 700 characters, then the document.
    assert.equal(
      await nth(2),
      [
        'Caring for wool, cotton and linen clothes so that they last for many seasons starts with washing them cold, inside out and by hand.',
        '',
        '- Wash cold, at 30 °C at most',
        '- Dry flat, away from the sun',
        '- Iron wool on the lowest setting, through a damp cloth',
        '',
        'Wool needs the gentlest care of all: a wool detergent, no fabric softener and no tumble dryer. Cotton can go in the machine on a ' +
          'gentle cycle, e.g. the one for delicates, and linen is best ironed while still a little damp. Stains come out with cold water ' +
          'and a drop of detergent; never rub, dab them. See our washing guide (https://shop.example/care) for every fabric we sell. — from care-guide.txt',
      ].join('\n'),
    );
  });

  test('with an embeddings provider, passages are embedded by it and found by meaning, not only by shared words', async () => {
    const user = await t.createConsoleUser();
    const model = 'fake-embed';
    const { baseId, documentId } = await baseWithPolicy(user, { embeddings: { baseUrl: `${embeddings.url}/v1`, model } });
    // Every passage gets the provider's vectors (the job after the document is ready).
    await eventually(async () => {
      const rows = await queryRows<{ model: string | null }>(t.database.db, sql`SELECT vectors_model AS model FROM knowledge_passages WHERE document_id = ${documentId}`);
      return rows.length === RETURNS_POLICY_PASSAGES.length && rows.every((row) => row.model === `${model} @ ${embeddings.url}/v1`);
    }, 20_000);
    assert.ok(embeddings.texts().includes('Returns Policy › Refunds'), 'the heading line was embedded');
    const fake = await fakeLlm();
    const channelId = await channel(user, baseId, { kind: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'test-model', timeoutSeconds: 10 });
    fake.script(COMPLETIONS, reply.text('Within 5 business days.'));
    // No word in common with the refunds passage; the provider maps "money" and "refunds" to one concept.
    const answer = await tryAgent(user, channelId, 'When do I get my money?');
    assert.deepEqual(answer.passages[0], passage('Refunds'));
  });
});
