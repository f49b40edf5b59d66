// A knowledge base's OpenAI-compatible embeddings provider (issue 17 item 5), against a local fake `/embeddings`
// server: setting it (the key write-only and sealed, private URLs refused unless allowed), every entry re-embedded
// through it in the background, a paraphrase answered with its vectors, a provider down leaves the words to answer,
// and the base's routes are the account's own. The built-in encoder is off here (KB_ENCODER=off).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KnowledgeBase } from '@parley/contracts';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { createEmbeddingsClient, EmbeddingsError } from '../src/knowledge/embeddings-client.ts';
import { createUrlGuard } from '../src/kernel/url-guard.ts';
import { eventually } from './support/events.ts';
import { FAKE_EMBEDDING_DIMENSIONS, startFakeEmbeddings, type FakeEmbeddings } from './support/fake-embeddings.ts';
import { browserTests, launchBrowser, signIn, withScreenshotOnFailure } from './support/browser.ts';
import { PASSWORD, startTestApp, type TestApp } from './support/harness.ts';

const FALLBACK = "I'm not sure I understood. Could you put it another way? You can also ask for a person.";
const KEY = 'sk-embed-test-0123456789';
const MODEL = 'fake-embed';
const REFUNDS = 'Refunds are paid within 14 days.';
const SHIPPING = 'Shipping takes 3 to 5 business days.';
const ENTRIES = [
  { question: 'How do refunds work?', answer: REFUNDS },
  { question: 'How long does shipping take?', answer: SHIPPING },
  { question: 'What payment methods do you accept?', answer: 'We accept cards, PayPal and bank transfer.' },
  { question: 'Do you sell gift cards?', synonyms: ['Can I buy a voucher?'], answer: 'Yes, digital gift cards from 10 to 500 euros.' },
];
/** Shares no word with the refunds entry: only the provider (reimbursed ~ refund) finds it. */
const PARAPHRASE = 'When will I be reimbursed?';

describe('knowledge bases: an OpenAI-compatible embeddings provider', () => {
  let t: TestApp;
  let fake: FakeEmbeddings;
  before(async () => {
    t = await startTestApp({ webhookAllowPrivateNetworks: true });
    fake = await startFakeEmbeddings();
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const provider = (extra: Record<string, unknown> = {}) => ({ baseUrl: `${fake.url}/v1`, model: MODEL, apiKey: KEY, ...extra });

  /** Entries of the base whose vectors the provider's current model did not make (yet). */
  async function notReembedded(baseId: string): Promise<number> {
    const [row] = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from knowledge_entries
          where knowledge_base_id = ${baseId} and vectors_model is distinct from ${`${MODEL} @ ${fake.url}/v1`}`,
    );
    return row?.n ?? -1;
  }

  /** A base with the entries and a test channel answering from it (with a low answerThreshold, see below). */
  async function setUp(embeddings?: Record<string, unknown>) {
    const user = await t.createConsoleUser();
    const base = await t.console<KnowledgeBase>(user.token, 'POST', '/knowledge-bases', {
      body: { name: 'FAQ', ...(embeddings ? { embeddings } : {}) },
    });
    assert.equal(base.status, 201, base.text);
    for (const entry of ENTRIES) {
      const res = await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, { body: entry });
      assert.equal(res.status, 201, res.text);
    }
    // The fusion's priors and the default threshold are calibrated on the built-in encoder; the fake's hashed
    // vectors are not that model, so the channel sets its own threshold (as a team with a provider would).
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', {
      body: { name: 'Support', knowledgeBaseId: base.body.id, agentEngine: { kind: 'knowledge-base', answerThreshold: 0.001 } },
    });
    assert.equal(channel.status, 201, channel.text);
    const ask = async (text: string) => {
      const res = await t.console<{ reply: string }>(user.token, 'POST', `/chat/test/${channel.body.id}/`, { body: { text } });
      assert.equal(res.status, 200, res.text);
      return res.body.reply;
    };
    return { user, base: base.body, ask };
  }

  test('set on creation: shown without the key (apiKeySet), the key sealed at rest, entries embedded through it', async () => {
    const callsBefore = fake.calls().length;
    const { user, base } = await setUp(provider());
    assert.deepEqual(base.embeddings, { baseUrl: `${fake.url}/v1`, model: MODEL, apiKeySet: true });
    const list = await t.console<{ knowledgeBases: KnowledgeBase[] }>(user.token, 'GET', '/knowledge-bases');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.knowledgeBases.map((b) => b.embeddings), [{ baseUrl: `${fake.url}/v1`, model: MODEL, apiKeySet: true }]);
    assert.ok(!list.text.includes(KEY));
    const [stored] = await queryRows<{ key: string }>(t.database.db, sql`select embeddings_api_key as key from knowledge_bases where id = ${base.id}`);
    assert.match(stored?.key ?? '', /^enc:v1:/);
    assert.ok(!stored?.key.includes(KEY));

    await eventually(async () => (await notReembedded(base.id)) === 0, 15_000);
    const calls = fake.calls().slice(callsBefore);
    for (const call of calls) {
      assert.equal(call.headers.authorization, `Bearer ${KEY}`);
      assert.equal(call.json?.model, MODEL);
    }
    const texts = calls.flatMap((call) => call.json?.input as string[]);
    for (const entry of ENTRIES) {
      assert.ok(texts.includes(entry.question), entry.question);
      assert.ok(texts.includes(entry.answer), entry.answer);
    }
    assert.ok(texts.includes('Can I buy a voucher?'));
    const [vectors] = await queryRows<{ dims: number; answerDims: number }>(
      t.database.db,
      sql`select cardinality(question_vectors)::int as dims, cardinality(answer_vector)::int as "answerDims"
          from knowledge_entries where knowledge_base_id = ${base.id} and question = 'Do you sell gift cards?'`,
    );
    // The question and its synonym, then the answer, as the provider made them.
    assert.deepEqual(vectors, { dims: 2 * FAKE_EMBEDDING_DIMENSIONS, answerDims: FAKE_EMBEDDING_DIMENSIONS });
    assert.ok(!t.logs.some((line) => line.includes(KEY)));
  });

  test('set later: every entry is re-embedded in the background, then a paraphrase is answered with its vectors', async () => {
    const { user, base, ask } = await setUp();
    assert.equal(base.embeddings, null);
    // Words alone (no provider, no encoder): the paraphrase shares no word with any entry.
    assert.equal(await ask(PARAPHRASE), FALLBACK);

    const callsBefore = fake.calls().length;
    const set = await t.console<KnowledgeBase>(user.token, 'PUT', `/knowledge-bases/${base.id}`, { body: { embeddings: provider() } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.embeddings, { baseUrl: `${fake.url}/v1`, model: MODEL, apiKeySet: true });
    assert.equal(set.body.name, 'FAQ');
    assert.ok(!set.text.includes(KEY));
    await eventually(async () => (await notReembedded(base.id)) === 0, 15_000);
    const texts = fake.calls().slice(callsBefore).flatMap((call) => call.json?.input as string[]);
    for (const entry of ENTRIES) assert.ok(texts.includes(entry.question), entry.question);

    const asked = fake.calls().length;
    assert.equal(await ask(PARAPHRASE), REFUNDS);
    // The question was embedded by the provider, with the key…
    const question = fake.calls().slice(asked);
    assert.deepEqual(question.map((call) => call.json), [{ model: MODEL, input: [PARAPHRASE] }]);
    assert.equal(question[0]?.headers.authorization, `Bearer ${KEY}`);
    // …once: the same question again comes from the cache.
    assert.equal(await ask(PARAPHRASE), REFUNDS);
    assert.equal(fake.calls().length, asked + 1);
    // An exact question never needs a vector.
    assert.equal(await ask('How long does shipping take?'), SHIPPING);
    assert.equal(fake.calls().length, asked + 1);
  });

  test('the provider down: the words still answer, the paraphrase gets the fallback, a warning is logged', async () => {
    const { base, ask } = await setUp(provider());
    await eventually(async () => (await notReembedded(base.id)) === 0, 15_000);
    fake.failing = 'down';
    try {
      const asked = fake.calls().length;
      assert.equal(await ask('how long will shipping take to Spain'), SHIPPING);
      assert.equal(await ask('Will I be reimbursed?'), FALLBACK);
      assert.ok(fake.calls().length > asked, 'the provider was asked');
      await eventually(async () => t.logs.some((line) => line.includes('embeddings provider failed') && line.includes(base.id)), 5000);
      assert.ok(!t.logs.some((line) => line.includes(KEY)));
    } finally {
      fake.failing = false;
    }
    // Up again: the next question uses it (a failure is not cached).
    assert.equal(await ask('Will I be reimbursed?'), REFUNDS);
  });

  test('at start, entries whose vectors are not their provider\'s current model are queued again', async () => {
    const { base } = await setUp(provider());
    await eventually(async () => (await notReembedded(base.id)) === 0, 15_000);
    // As if the process stopped between a provider change and its jobs.
    await t.database.db.execute(sql`update knowledge_entries set vectors_model = 'old-model @ http://old' where knowledge_base_id = ${base.id}`);
    assert.equal(await notReembedded(base.id), ENTRIES.length);
    const restarted = await startTestApp({ database: t.database, webhookAllowPrivateNetworks: true });
    try {
      await eventually(async () => (await notReembedded(base.id)) === 0, 15_000);
    } finally {
      await restarted.close();
    }
  });

  test('the client: vectors in input order, the key never in an error, wrong answers and private addresses refused', async () => {
    const open = createEmbeddingsClient({ guard: createUrlGuard({ allowPrivateNetworks: true }) });
    const guarded = createEmbeddingsClient({ guard: createUrlGuard({ allowPrivateNetworks: false }) });
    const config = { baseUrl: `${fake.url}/v1/`, model: MODEL, apiKey: KEY };
    try {
      const vectors = await open.embed(config, ['refund money', 'shipping']);
      assert.equal(vectors.length, 2);
      assert.deepEqual(vectors[0]?.length, FAKE_EMBEDDING_DIMENSIONS);
      // A trailing slash on baseUrl is not doubled.
      assert.equal(fake.calls().at(-1)?.path, '/v1/embeddings');
      fake.failing = 'echo-key';
      const echoed = await open.embed(config, ['x']).then(
        () => assert.fail('expected an error'),
        (error: unknown) => error,
      );
      assert.ok(echoed instanceof EmbeddingsError);
      assert.match(echoed.message, /^embeddings provider 127\.0\.0\.1:\d+: HTTP 401: /);
      assert.ok(!echoed.message.includes(KEY), echoed.message);
      fake.failing = 'short';
      await assert.rejects(open.embed(config, ['a', 'b']), /expected 2 embeddings in data\[\]/);
      fake.failing = false;
      const calls = fake.calls().length;
      await assert.rejects(guarded.embed(config, ['a']), /refused to connect to 127\.0\.0\.1 \(private network\)/);
      await assert.rejects(
        guarded.embed({ ...config, baseUrl: `http://localhost:${new URL(fake.url).port}/v1` }, ['a']),
        /private network/,
      );
      assert.equal(fake.calls().length, calls, 'no request reached the private address');
    } finally {
      fake.failing = false;
      await Promise.all([open.close(), guarded.close()]);
    }
  });

  test('changing the provider: the key is kept for the same URL and dropped for another; removing it', async () => {
    const { user, base } = await setUp(provider());
    const put = (body: unknown) => t.console<KnowledgeBase>(user.token, 'PUT', `/knowledge-bases/${base.id}`, { body });
    const renamed = await put({ name: 'FAQ 2' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual([renamed.body.name, renamed.body.embeddings], ['FAQ 2', { baseUrl: `${fake.url}/v1`, model: MODEL, apiKeySet: true }]);
    const sameUrl = await put({ embeddings: { baseUrl: `${fake.url}/v1`, model: MODEL } });
    assert.equal(sameUrl.status, 200, sameUrl.text);
    assert.equal(sameUrl.body.embeddings?.apiKeySet, true);
    // Another host (localhost instead of 127.0.0.1): the key is not sent there unless given again.
    const port = new URL(fake.url).port;
    const otherUrl = await put({ embeddings: { baseUrl: `http://localhost:${port}/v1`, model: MODEL } });
    assert.equal(otherUrl.status, 200, otherUrl.text);
    assert.deepEqual(otherUrl.body.embeddings, { baseUrl: `http://localhost:${port}/v1`, model: MODEL, apiKeySet: false });
    const [row] = await queryRows<{ key: string | null }>(t.database.db, sql`select embeddings_api_key as key from knowledge_bases where id = ${base.id}`);
    assert.equal(row?.key, null);
    // The new model's vectors replace the old ones (the job re-embeds every entry).
    await eventually(async () => {
      const [left] = await queryRows<{ n: number }>(
        t.database.db,
        sql`select count(*)::int as n from knowledge_entries where knowledge_base_id = ${base.id}
            and vectors_model is distinct from ${`${MODEL} @ http://localhost:${port}/v1`}`,
      );
      return left?.n === 0;
    }, 15_000);
    const removed = await put({ embeddings: null });
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.body.embeddings, null);
    const [cleared] = await queryRows<{ url: string | null; model: string | null; key: string | null }>(
      t.database.db,
      sql`select embeddings_base_url as url, embeddings_model as model, embeddings_api_key as key from knowledge_bases where id = ${base.id}`,
    );
    assert.deepEqual(cleared, { url: null, model: null, key: null });
  });

  test('validation: http(s) only, no credentials in the URL, no unknown fields, the key printable ASCII', async () => {
    const user = await t.createConsoleUser();
    const base = await t.console<KnowledgeBase>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ' } });
    const put = (embeddings: unknown) => t.console<{ message: string }>(user.token, 'PUT', `/knowledge-bases/${base.body.id}`, { body: { embeddings } });
    for (const embeddings of [
      { baseUrl: 'ftp://models.example.com/v1', model: MODEL },
      { baseUrl: 'not a url', model: MODEL },
      { baseUrl: `${fake.url}/v1`, model: '' },
      { baseUrl: `${fake.url}/v1` },
      { baseUrl: `${fake.url}/v1`, model: MODEL, apiKey: 'has space' },
      { baseUrl: `${fake.url}/v1`, model: MODEL, dimensions: 3 },
    ]) {
      const res = await put(embeddings);
      assert.equal(res.status, 400, JSON.stringify(embeddings));
    }
    const credentials = await put({ baseUrl: 'https://user:secret@models.example.com/v1', model: MODEL });
    assert.deepEqual([credentials.status, credentials.body.message], [400, 'embeddings.baseUrl must be an http or https URL']);
    const unknown = await t.console(user.token, 'PUT', `/knowledge-bases/${base.body.id}`, { body: { name: 'X', provider: 'openai' } });
    assert.equal(unknown.status, 400);
  });

  test('a private or loopback URL is refused when WEBHOOK_ALLOW_PRIVATE_NETWORKS is off', async () => {
    const strict = await startTestApp({ database: t.database, webhookAllowPrivateNetworks: false, workers: false });
    try {
      const user = await strict.createConsoleUser();
      for (const baseUrl of [`${fake.url}/v1`, 'http://169.254.169.254/v1', 'http://10.0.0.5:11434/v1']) {
        const created = await strict.console<{ message: string }>(user.token, 'POST', '/knowledge-bases', {
          body: { name: 'FAQ', embeddings: { baseUrl, model: MODEL } },
        });
        assert.equal(created.status, 400, created.text);
        assert.match(created.body.message, /^embeddings\.baseUrl points to a private, loopback or link-local address \(/);
      }
      const base = await strict.console<KnowledgeBase>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ' } });
      const put = await strict.console<{ message: string }>(user.token, 'PUT', `/knowledge-bases/${base.body.id}`, {
        body: { embeddings: { baseUrl: `http://localhost:${new URL(fake.url).port}/v1`, model: MODEL } },
      });
      assert.equal(put.status, 400, put.text);
      assert.match(put.body.message, /^embeddings\.baseUrl points to a private, loopback or link-local address \((127\.0\.0\.1|::1)\)/);
    } finally {
      await strict.close();
    }
  });

  test('the web account sets and removes the provider on the base page (the key never shown)', browserTests, async (ctx) => {
    const user = await t.createConsoleUser();
    const base = await t.console<KnowledgeBase>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Web FAQ' } });
    const browser = await launchBrowser();
    try {
      const { page } = await browser.newPage();
      await withScreenshotOnFailure(ctx, page, async () => {
        await signIn(page, `${t.url}/`, user.email, PASSWORD);
        await page.getByRole('link', { name: 'Knowledge bases', exact: true }).click();
        await page.getByRole('link', { name: 'Web FAQ', exact: true }).click();
        const form = page.getByRole('form', { name: 'Embeddings provider', exact: true });
        await form.getByRole('textbox', { name: 'Embeddings base URL', exact: true }).fill(`${fake.url}/v1`);
        await form.getByRole('textbox', { name: 'Embeddings model', exact: true }).fill(MODEL);
        await form.getByLabel('Embeddings API key', { exact: true }).fill(KEY);
        await form.getByRole('button', { name: 'Save embeddings provider', exact: true }).click();
        await form.getByRole('button', { name: 'Remove embeddings provider', exact: true }).waitFor({ timeout: 20_000 });
        const saved = await t.console<{ knowledgeBases: KnowledgeBase[] }>(user.token, 'GET', '/knowledge-bases');
        assert.deepEqual(saved.body.knowledgeBases[0]?.embeddings, { baseUrl: `${fake.url}/v1`, model: MODEL, apiKeySet: true });
        assert.equal(await form.getByLabel('Embeddings API key', { exact: true }).inputValue(), '');
        assert.ok(!(await page.content()).includes(KEY));
        await form.getByRole('button', { name: 'Remove embeddings provider', exact: true }).click();
        await eventually(async () => (await form.getByRole('button', { name: 'Remove embeddings provider', exact: true }).count()) === 0, 20_000);
        const removed = await t.console<{ knowledgeBases: KnowledgeBase[] }>(user.token, 'GET', '/knowledge-bases');
        assert.equal(removed.body.knowledgeBases[0]?.embeddings, null);
        assert.equal(base.status, 201);
      });
    } finally {
      await browser.close();
    }
  });

  test("another account's base: 404 on PUT, never listed, its provider untouched", async () => {
    const { base } = await setUp(provider());
    const stranger = await t.createConsoleUser();
    const res = await t.console(stranger.token, 'PUT', `/knowledge-bases/${base.id}`, {
      body: { embeddings: { baseUrl: 'https://evil.example.com/v1', model: 'steal' } },
    });
    assert.deepEqual([res.status, res.body], [404, { message: 'Knowledge base not found', statusCode: 404 }]);
    const removal = await t.console(stranger.token, 'PUT', `/knowledge-bases/${base.id}`, { body: { embeddings: null } });
    assert.equal(removal.status, 404);
    const list = await t.console<{ knowledgeBases: KnowledgeBase[] }>(stranger.token, 'GET', '/knowledge-bases');
    assert.deepEqual(list.body.knowledgeBases, []);
    const [row] = await queryRows<{ url: string | null; model: string | null }>(
      t.database.db,
      sql`select embeddings_base_url as url, embeddings_model as model from knowledge_bases where id = ${base.id}`,
    );
    assert.deepEqual(row, { url: `${fake.url}/v1`, model: MODEL });
  });
});
