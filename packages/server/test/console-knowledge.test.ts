// Console knowledge bases and entries: every route and error, tenant isolation, the full-text `search` column.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ANSWER_MAX, QUESTION_MAX, type KnowledgeBase, type KnowledgeEntry } from '@parley/contracts';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import type { Clock } from '../src/lib/clock.ts';
import { createSecretBox } from '../src/lib/secret-box.ts';
import { createUrlGuard } from '../src/kernel/url-guard.ts';
import { createKnowledgeService } from '../src/knowledge/knowledge-service.ts';
import { createKnowledgeStore } from '../src/knowledge/knowledge-store.ts';
import { TEXT_SEARCH_CONFIGS } from '../src/knowledge/text-search.ts';
import { startTestApp, type TestApp } from './support/harness.ts';

// Every reading is one second after the previous one, so creation order and `updatedAt` changes are visible.
let tick = Date.parse('2030-01-01T00:00:00.000Z');
const clock: Clock = { now: () => new Date((tick += 1000)) };

let t: TestApp;
before(async () => {
  t = await startTestApp({ clock });
});
after(() => t.close());

const MISSING = '01900000-0000-7000-8000-000000000000';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KB_NOT_FOUND = { message: 'Knowledge base not found', statusCode: 404 };
const ENTRY_NOT_FOUND = { message: 'Entry not found', statusCode: 404 };

type User = Awaited<ReturnType<TestApp['createConsoleUser']>>;

async function createBase(user: User, body: Record<string, unknown>): Promise<KnowledgeBase> {
  const res = await t.console<KnowledgeBase>(user.token, 'POST', '/knowledge-bases', { body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function createEntry(user: User, baseId: string, question: string, answer: string): Promise<KnowledgeEntry> {
  const res = await t.console<KnowledgeEntry>(user.token, 'POST', `/knowledge-bases/${baseId}/entries`, {
    body: { question, answer },
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function listEntries(user: User, baseId: string, query?: Record<string, string>) {
  return t.console<{ entries: KnowledgeEntry[]; count: number }>(user.token, 'GET', `/knowledge-bases/${baseId}/entries`, {
    query,
  });
}

async function listBases(user: User) {
  const res = await t.console<{ knowledgeBases: KnowledgeBase[] }>(user.token, 'GET', '/knowledge-bases');
  assert.equal(res.status, 200, res.text);
  return res.body.knowledgeBases;
}

/** Ids of the entries whose `search` matches the query in the given configuration. */
async function matching(config: string, words: string): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    t.database.db,
    sql`select id from knowledge_entries where search @@ plainto_tsquery(${config}::regconfig, ${words}) order by id`,
  );
  return rows.map((row) => row.id);
}

async function matchesTsquery(entryId: string, config: string, query: string): Promise<boolean> {
  const rows = await queryRows<{ hit: boolean }>(
    t.database.db,
    sql`select search @@ to_tsquery(${config}::regconfig, ${query}) as hit from knowledge_entries where id = ${entryId}`,
  );
  assert.equal(rows.length, 1);
  return rows[0]?.hit ?? false;
}

describe('knowledge bases', () => {
  test('create: 201 with the full shape; language defaults to en', async () => {
    const user = await t.createConsoleUser();
    const res = await t.console<KnowledgeBase>(user.token, 'POST', '/knowledge-bases', { body: { name: 'Support' } });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'embeddings', 'entryCount', 'id', 'language', 'name', 'updatedAt']);
    assert.equal(res.body.embeddings, null);
    assert.match(res.body.id, UUID_V7);
    assert.equal(res.body.name, 'Support');
    assert.equal(res.body.language, 'en');
    assert.equal(res.body.entryCount, 0);
    assert.match(res.body.createdAt, ISO);
    assert.equal(res.body.updatedAt, res.body.createdAt);
    const rows = await queryRows<{ account_id: string }>(
      t.database.db,
      sql`select account_id from knowledge_bases where id = ${res.body.id}`,
    );
    assert.deepEqual(rows, [{ account_id: user.accountId }]);
  });

  test('create with an explicit language keeps it as given', async () => {
    const user = await t.createConsoleUser();
    assert.equal((await createBase(user, { name: 'Поддержка', language: 'ru' })).language, 'ru');
    assert.equal((await createBase(user, { name: 'Suporte', language: 'pt-BR' })).language, 'pt-BR');
  });

  test('list: the account’s bases in creation order, each with its entry count', async () => {
    const user = await t.createConsoleUser();
    assert.deepEqual(await listBases(user), []);
    const first = await createBase(user, { name: 'First' });
    const second = await createBase(user, { name: 'Second', language: 'de' });
    await createEntry(user, first.id, 'Q1', 'A1');
    await createEntry(user, first.id, 'Q2', 'A2');
    await createEntry(user, second.id, 'Q3', 'A3');
    const bases = await listBases(user);
    assert.deepEqual(bases, [
      { ...first, entryCount: 2 },
      { ...second, entryCount: 1 },
    ]);
  });

  test('rename: 200 with the new name and a later updatedAt; the entry count comes along', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'Old name', language: 'fr' });
    await createEntry(user, base.id, 'Q', 'A');
    const res = await t.console<KnowledgeBase>(user.token, 'PUT', `/knowledge-bases/${base.id}`, {
      body: { name: 'New name' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ...base, name: 'New name', entryCount: 1, updatedAt: res.body.updatedAt });
    assert.match(res.body.updatedAt, ISO);
    assert.ok(res.body.updatedAt > base.updatedAt);
    assert.deepEqual(await listBases(user), [res.body]);
  });

  test('delete: 200 { success: true }, the entries go with it, then 404 everywhere', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'Doomed' });
    const entry = await createEntry(user, base.id, 'Q', 'A');
    const res = await t.console(user.token, 'DELETE', `/knowledge-bases/${base.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    const left = await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from knowledge_entries where knowledge_base_id = ${base.id}`,
    );
    assert.deepEqual(left, [{ n: 0 }]);
    assert.deepEqual(await listBases(user), []);

    const again = await t.console(user.token, 'DELETE', `/knowledge-bases/${base.id}`);
    assert.equal(again.status, 404);
    assert.deepEqual(again.body, KB_NOT_FOUND);
    const rename = await t.console(user.token, 'PUT', `/knowledge-bases/${base.id}`, { body: { name: 'x' } });
    assert.deepEqual([rename.status, rename.body], [404, KB_NOT_FOUND]);
    const entries = await listEntries(user, base.id);
    assert.deepEqual([entries.status, entries.body], [404, KB_NOT_FOUND]);
    const entryPath = `/knowledge-bases/${base.id}/entries/${entry.id}`;
    const update = await t.console(user.token, 'PUT', entryPath, { body: { answer: 'B' } });
    assert.deepEqual([update.status, update.body], [404, KB_NOT_FOUND]);
  });

  test('an unknown base: 404 on every route, in English or in Russian by UserLang', async () => {
    const user = await t.createConsoleUser();
    const calls: [string, string, unknown][] = [
      ['PUT', `/knowledge-bases/${MISSING}`, { name: 'x' }],
      ['DELETE', `/knowledge-bases/${MISSING}`, undefined],
      ['GET', `/knowledge-bases/${MISSING}/entries`, undefined],
      ['POST', `/knowledge-bases/${MISSING}/entries`, { question: 'Q', answer: 'A' }],
      ['PUT', `/knowledge-bases/${MISSING}/entries/${MISSING}`, { answer: 'A' }],
      ['DELETE', `/knowledge-bases/${MISSING}/entries/${MISSING}`, undefined],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.console(user.token, method, path, { body });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.deepEqual(res.body, KB_NOT_FOUND, `${method} ${path}`);
      const ru = await t.console(user.token, method, path, { body, lang: 'ru' });
      assert.equal(ru.status, 404, `${method} ${path}`);
      assert.deepEqual(ru.body, { message: 'База знаний не найдена', statusCode: 404 }, `${method} ${path}`);
    }
  });

  test('bad bodies and paths: 400 saying what is wrong, nothing stored', async () => {
    const user = await t.createConsoleUser();
    const cases: [string, string, unknown, string[]][] = [
      ['POST', '/knowledge-bases', { name: 'x', color: 'red' }, ['property color should not exist']],
      ['POST', '/knowledge-bases', { name: '' }, ['Name: cannot be empty']],
      ['POST', '/knowledge-bases', { name: 'x'.repeat(101) }, ['Name: up to 100 characters']],
      ['POST', '/knowledge-bases', {}, ['name is required']],
      ['POST', '/knowledge-bases', { name: 42 }, ['Name: must be text']],
      [
        'POST',
        '/knowledge-bases',
        { name: 'x', language: 'English' },
        ['Language: a language code such as en or pt-BR'],
      ],
      ['PUT', `/knowledge-bases/not-a-uuid`, { name: 'x' }, ['Id: an id (UUID)']],
      ['DELETE', `/knowledge-bases/not-a-uuid`, undefined, ['Id: an id (UUID)']],
      ['PUT', `/knowledge-bases/${MISSING}`, { name: '' }, ['Name: cannot be empty']],
      ['PUT', `/knowledge-bases/${MISSING}`, { name: 'x', language: 'ru' }, ['property language should not exist']],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await t.console(user.token, method, path, { body });
      assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      assert.deepEqual(res.body, { message, statusCode: 400 }, `${method} ${path} ${JSON.stringify(body)}`);
    }
    assert.deepEqual(await listBases(user), []);
  });

  test('no token: 401', async () => {
    for (const [method, path] of [
      ['GET', '/knowledge-bases'],
      ['POST', '/knowledge-bases'],
      ['GET', `/knowledge-bases/${MISSING}/entries`],
      ['DELETE', `/knowledge-bases/${MISSING}/entries/${MISSING}`],
    ] as const) {
      const res = await t.console(undefined, method, path);
      assert.deepEqual([res.status, res.body], [401, { message: 'Unauthorized', statusCode: 401 }], `${method} ${path}`);
    }
  });
});

describe('entries', () => {
  test('create: 201 with the full shape, source manual, no message id', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'KB' });
    const res = await t.console<KnowledgeEntry>(user.token, 'POST', `/knowledge-bases/${base.id}/entries`, {
      body: { question: 'Where is my order?', answer: 'See the Orders page.' },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), [
      'actionId',
      'answer',
      'createdAt',
      'id',
      'knowledgeBaseId',
      'learnedQuestions',
      'messageId',
      'question',
      'source',
      'synonyms',
      'updatedAt',
    ]);
    assert.match(res.body.id, UUID_V7);
    assert.match(res.body.createdAt, ISO);
    assert.deepEqual(res.body, {
      id: res.body.id,
      knowledgeBaseId: base.id,
      question: 'Where is my order?',
      synonyms: [],
      answer: 'See the Orders page.',
      source: 'manual',
      messageId: null,
      actionId: null,
      learnedQuestions: [],
      createdAt: res.body.createdAt,
      updatedAt: res.body.createdAt,
    });
    const listed = await listEntries(user, base.id);
    assert.deepEqual(listed.body, { entries: [res.body], count: 1 });
  });

  test('the longest question and answer are accepted', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'KB' });
    const entry = await createEntry(user, base.id, 'q'.repeat(QUESTION_MAX), 'a'.repeat(ANSWER_MAX));
    assert.equal(entry.question.length, QUESTION_MAX);
    assert.equal(entry.answer.length, ANSWER_MAX);
  });

  test('list: newest first, limit and offset page through, count is the total', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'KB' });
    const other = await createBase(user, { name: 'Other' });
    await createEntry(user, other.id, 'Elsewhere', 'Not in KB');
    const created: KnowledgeEntry[] = [];
    for (let i = 1; i <= 5; i += 1) created.push(await createEntry(user, base.id, `Q${i}`, `A${i}`));
    const newestFirst = [...created].reverse();

    const all = await listEntries(user, base.id);
    assert.equal(all.status, 200);
    assert.deepEqual(all.body, { entries: newestFirst, count: 5 });
    const page = async (query: Record<string, string>) => {
      const res = await listEntries(user, base.id, query);
      assert.equal(res.status, 200, res.text);
      return { questions: res.body.entries.map((e) => e.question), count: res.body.count };
    };
    assert.deepEqual(await page({ limit: '2' }), { questions: ['Q5', 'Q4'], count: 5 });
    assert.deepEqual(await page({ limit: '2', offset: '2' }), { questions: ['Q3', 'Q2'], count: 5 });
    assert.deepEqual(await page({ limit: '2', offset: '4' }), { questions: ['Q1'], count: 5 });
    assert.deepEqual(await page({ offset: '3' }), { questions: ['Q2', 'Q1'], count: 5 });
    assert.deepEqual(await page({ offset: '10' }), { questions: [], count: 5 });
    assert.deepEqual(await page({ limit: '1000' }), { questions: ['Q5', 'Q4', 'Q3', 'Q2', 'Q1'], count: 5 });
  });

  test('update: partial, updatedAt moves, createdAt and the other field stay', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'KB' });
    const entry = await createEntry(user, base.id, 'Old question', 'Old answer');
    const path = `/knowledge-bases/${base.id}/entries/${entry.id}`;

    const answered = await t.console<KnowledgeEntry>(user.token, 'PUT', path, { body: { answer: 'New answer' } });
    assert.equal(answered.status, 200);
    assert.deepEqual(answered.body, { ...entry, answer: 'New answer', updatedAt: answered.body.updatedAt });
    assert.ok(answered.body.updatedAt > entry.updatedAt);

    const asked = await t.console<KnowledgeEntry>(user.token, 'PUT', path, { body: { question: 'New question' } });
    assert.equal(asked.status, 200);
    assert.deepEqual(asked.body, { ...answered.body, question: 'New question', updatedAt: asked.body.updatedAt });
    assert.ok(asked.body.updatedAt > answered.body.updatedAt);

    const both = await t.console<KnowledgeEntry>(user.token, 'PUT', path, { body: { question: 'Q', answer: 'A' } });
    assert.equal(both.status, 200);
    assert.deepEqual([both.body.question, both.body.answer, both.body.createdAt], ['Q', 'A', entry.createdAt]);

    // An empty body changes nothing, so the entry comes back as it is.
    const unchanged = await t.console<KnowledgeEntry>(user.token, 'PUT', path, { body: {} });
    assert.equal(unchanged.status, 200);
    assert.deepEqual(unchanged.body, both.body);
    assert.deepEqual((await listEntries(user, base.id)).body, { entries: [both.body], count: 1 });
  });

  test('synonyms: stored, searched with the question, replaced on update; at most 20 non-empty ones', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'KB' });
    const path = `/knowledge-bases/${base.id}/entries`;
    const created = await t.console<KnowledgeEntry>(user.token, 'POST', path, {
      body: { question: 'How long is delivery?', synonyms: ['When will my parcel arrive?'], answer: 'Three days.' },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.synonyms, ['When will my parcel arrive?']);
    const [row] = await queryRows<{ keys: string[]; parcel: boolean }>(
      t.database.db,
      sql`select question_keys as keys, search @@ to_tsquery('english', 'parcels') as parcel from knowledge_entries where id = ${created.body.id}`,
    );
    assert.deepEqual(row, { keys: ['how long is delivery', 'when will my parcel arrive'], parcel: true });
    const updated = await t.console<KnowledgeEntry>(user.token, 'PUT', `${path}/${created.body.id}`, { body: { synonyms: [] } });
    assert.deepEqual(updated.body.synonyms, []);
    assert.equal(updated.body.question, 'How long is delivery?');
    const [after] = await queryRows<{ keys: string[]; parcel: boolean }>(
      t.database.db,
      sql`select question_keys as keys, search @@ to_tsquery('english', 'parcels') as parcel from knowledge_entries where id = ${created.body.id}`,
    );
    assert.deepEqual(after, { keys: ['how long is delivery'], parcel: false });
    const tooMany = await t.console(user.token, 'POST', path, {
      body: { question: 'Q', synonyms: Array.from({ length: 21 }, (_, i) => `q${i}`), answer: 'A' },
    });
    assert.equal(tooMany.status, 400);
    assert.equal((await t.console(user.token, 'POST', path, { body: { question: 'Q', synonyms: [''], answer: 'A' } })).status, 400);
  });

  test('delete: 200 { success: true }, then 404; the other entries stay', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'KB' });
    const keep = await createEntry(user, base.id, 'Keep', 'Kept');
    const drop = await createEntry(user, base.id, 'Drop', 'Dropped');
    const path = `/knowledge-bases/${base.id}/entries/${drop.id}`;
    const res = await t.console(user.token, 'DELETE', path);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    assert.deepEqual((await listEntries(user, base.id)).body, { entries: [keep], count: 1 });
    assert.equal((await listBases(user))[0]?.entryCount, 1);

    const again = await t.console(user.token, 'DELETE', path);
    assert.deepEqual([again.status, again.body], [404, ENTRY_NOT_FOUND]);
    const update = await t.console(user.token, 'PUT', path, { body: { answer: 'x' } });
    assert.deepEqual([update.status, update.body], [404, ENTRY_NOT_FOUND]);
  });

  test('an unknown entry, or one of another base of the same account: 404 Entry not found (ru by UserLang)', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'KB' });
    const other = await createBase(user, { name: 'Other' });
    const entry = await createEntry(user, other.id, 'Q', 'A');
    for (const entryId of [MISSING, entry.id]) {
      const path = `/knowledge-bases/${base.id}/entries/${entryId}`;
      for (const [method, body] of [
        ['PUT', { answer: 'changed' }],
        ['PUT', {}],
        ['DELETE', undefined],
      ] as const) {
        const res = await t.console(user.token, method, path, { body });
        assert.deepEqual([res.status, res.body], [404, ENTRY_NOT_FOUND], `${method} ${entryId}`);
        const ru = await t.console(user.token, method, path, { body, lang: 'ru' });
        assert.deepEqual([ru.status, ru.body], [404, { message: 'Запись не найдена', statusCode: 404 }]);
      }
    }
    assert.deepEqual((await listEntries(user, other.id)).body, { entries: [entry], count: 1 });
  });

  test('bad bodies, paths and pages: 400 saying what is wrong, nothing stored', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'KB' });
    const entry = await createEntry(user, base.id, 'Q', 'A');
    const entries = `/knowledge-bases/${base.id}/entries`;
    const one = `${entries}/${entry.id}`;
    const cases: [string, string, unknown, string[]][] = [
      ['POST', entries, { question: 'Q', answer: 'A', source: 'correction' }, ['property source should not exist']],
      ['POST', entries, { question: '', answer: 'A' }, ['Question: cannot be empty']],
      ['POST', entries, { question: 'Q', answer: '' }, ['Answer: cannot be empty']],
      [
        'POST',
        entries,
        { question: 'q'.repeat(QUESTION_MAX + 1), answer: 'A' },
        ['Question: up to 1000 characters'],
      ],
      [
        'POST',
        entries,
        { question: 'Q', answer: 'a'.repeat(ANSWER_MAX + 1) },
        ['Answer: up to 10000 characters'],
      ],
      ['POST', entries, { question: 'Q' }, ['answer is required']],
      ['POST', '/knowledge-bases/not-a-uuid/entries', { question: 'Q', answer: 'A' }, ['Id: an id (UUID)']],
      ['PUT', one, { question: 'Q', messageId: 'm' }, ['property messageId should not exist']],
      ['PUT', one, { answer: '' }, ['Answer: cannot be empty']],
      ['PUT', one, { question: 'q'.repeat(QUESTION_MAX + 1) }, ['Question: up to 1000 characters']],
      ['PUT', `${entries}/not-a-uuid`, { answer: 'A' }, ['Entry id: an id (UUID)']],
      ['DELETE', `${entries}/not-a-uuid`, undefined, ['Entry id: an id (UUID)']],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await t.console(user.token, method, path, { body });
      assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      assert.deepEqual(res.body, { message, statusCode: 400 }, `${method} ${path} ${JSON.stringify(body)}`);
    }
    const pages: [Record<string, string>, string[]][] = [
      [{ limit: '0' }, ['Limit: at least 1']],
      [{ limit: '1001' }, ['Limit: at most 1000']],
      [{ limit: 'ten' }, ['Limit: must be a whole number']],
      [{ offset: '-1' }, ['Offset: at least 0']],
      [{ page: '2' }, ['property page should not exist']],
    ];
    for (const [query, message] of pages) {
      const res = await listEntries(user, base.id, query);
      assert.equal(res.status, 400, JSON.stringify(query));
      assert.deepEqual(res.body, { message, statusCode: 400 }, JSON.stringify(query));
    }
    assert.deepEqual((await listEntries(user, base.id)).body, { entries: [entry], count: 1 });
  });

  test('addEntry (for the dislike endpoint) stores a correction with its message id', async () => {
    const user = await t.createConsoleUser();
    const stranger = await t.createConsoleUser();
    const base = await createBase(user, { name: 'KB' });
    const secrets = createSecretBox('test-secrets-key-of-at-least-32-chars');
    const urlGuard = createUrlGuard({ allowPrivateNetworks: true });
    const knowledge = createKnowledgeService({ store: createKnowledgeStore(t.database.db, secrets), clock, urlGuard, audit: async () => {} });
    const correction = await knowledge.addEntry(user.accountId, base.id, {
      question: 'Do you ship abroad?',
      answer: 'Yes, to 40 countries.',
      source: 'correction',
      messageId: 'msg_123',
    });
    assert.equal(correction.source, 'correction');
    assert.equal(correction.messageId, 'msg_123');
    assert.deepEqual((await listEntries(user, base.id)).body, { entries: [correction], count: 1 });
    await assert.rejects(
      knowledge.addEntry(stranger.accountId, base.id, { question: 'Q', answer: 'A', source: 'manual' }),
      { message: 'Knowledge base not found', status: 404 },
    );
    assert.equal((await listEntries(user, base.id)).body.count, 1);
  });
});

describe('tenant isolation', () => {
  test("another account gets 404 on every route for one account's base and entries, which stay unchanged", async () => {
    const owner = await t.createConsoleUser();
    const intruder = await t.createConsoleUser();
    const base = await createBase(owner, { name: 'Private', language: 'ru' });
    const entry = await createEntry(owner, base.id, 'Секрет', 'Ответ');
    const intruderBase = await createBase(intruder, { name: 'Mine' });
    const basesBefore = await listBases(owner);
    const entriesBefore = (await listEntries(owner, base.id)).body;

    const kbCalls: [string, string, unknown][] = [
      ['PUT', `/knowledge-bases/${base.id}`, { name: 'Hacked' }],
      ['DELETE', `/knowledge-bases/${base.id}`, undefined],
      ['GET', `/knowledge-bases/${base.id}/entries`, undefined],
      ['POST', `/knowledge-bases/${base.id}/entries`, { question: 'Q', answer: 'A' }],
      ['PUT', `/knowledge-bases/${base.id}/entries/${entry.id}`, { answer: 'Hacked' }],
      ['PUT', `/knowledge-bases/${base.id}/entries/${entry.id}`, {}],
      ['DELETE', `/knowledge-bases/${base.id}/entries/${entry.id}`, undefined],
    ];
    for (const [method, path, body] of kbCalls) {
      const res = await t.console(intruder.token, method, path, { body });
      assert.deepEqual([res.status, res.body], [404, KB_NOT_FOUND], `${method} ${path}`);
    }
    // The owner's entry through the intruder's own base.
    const entryCalls: [string, unknown][] = [
      ['PUT', { question: 'Hacked' }],
      ['PUT', {}],
      ['DELETE', undefined],
    ];
    for (const [method, body] of entryCalls) {
      const path = `/knowledge-bases/${intruderBase.id}/entries/${entry.id}`;
      const res = await t.console(intruder.token, method, path, { body });
      assert.deepEqual([res.status, res.body], [404, ENTRY_NOT_FOUND], `${method} ${path}`);
    }

    assert.deepEqual(await listBases(intruder), [intruderBase]);
    assert.deepEqual((await listEntries(intruder, intruderBase.id)).body, { entries: [], count: 0 });
    assert.deepEqual(await listBases(owner), basesBefore);
    assert.deepEqual((await listEntries(owner, base.id)).body, entriesBefore);
  });
});

describe('full-text search column', () => {
  test('every configuration on the allow-list exists in this database', async () => {
    const rows = await queryRows<{ cfgname: string }>(t.database.db, sql`select cfgname from pg_ts_config`);
    const present = new Set(rows.map((row) => row.cfgname));
    assert.deepEqual(
      TEXT_SEARCH_CONFIGS.filter((config) => !present.has(config)),
      [],
    );
  });

  test('a ru base: Russian stemming finds the entry', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'Возвраты', language: 'ru' });
    const entry = await createEntry(user, base.id, 'Как оформить возврат товаров?', 'Напишите в поддержку.');
    assert.ok((await matching('russian', 'возвраты')).includes(entry.id));
    assert.ok((await matching('russian', 'товар')).includes(entry.id));
    // Without Russian stemming the plural form does not meet the stored stem.
    assert.ok(!(await matching('english', 'возвраты')).includes(entry.id));
  });

  test('an en base: English stemming; question words weigh A, answer words B', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'Returns' });
    const entry = await createEntry(user, base.id, 'How do I return my shipped orders?', 'Print the prepaid label.');
    assert.ok((await matching('english', 'returning order')).includes(entry.id));
    assert.ok(!(await matching('simple', 'returning order')).includes(entry.id));
    assert.equal(await matchesTsquery(entry.id, 'english', 'ship:A'), true);
    assert.equal(await matchesTsquery(entry.id, 'english', 'label:B'), true);
    assert.equal(await matchesTsquery(entry.id, 'english', 'label:A'), false);
  });

  test('an unknown language uses simple: no stemming', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'Other', language: 'xx' });
    const entry = await createEntry(user, base.id, 'Returns policy', 'Thirty days');
    assert.ok((await matching('simple', 'returns')).includes(entry.id));
    assert.equal(await matchesTsquery(entry.id, 'simple', 'return'), false);
  });

  test('an update recomputes the column from the resulting question and answer', async () => {
    const user = await t.createConsoleUser();
    const base = await createBase(user, { name: 'KB' });
    const entry = await createEntry(user, base.id, 'How long is delivery?', 'Three days by courier.');
    const path = `/knowledge-bases/${base.id}/entries/${entry.id}`;
    assert.equal((await t.console(user.token, 'PUT', path, { body: { answer: 'A week by post.' } })).status, 200);
    assert.equal(await matchesTsquery(entry.id, 'english', 'courier'), false);
    assert.equal(await matchesTsquery(entry.id, 'english', 'post:B'), true);
    assert.equal(await matchesTsquery(entry.id, 'english', 'delivery:A'), true);

    assert.equal((await t.console(user.token, 'PUT', path, { body: { question: 'Is shipping free?' } })).status, 200);
    assert.equal(await matchesTsquery(entry.id, 'english', 'delivery'), false);
    assert.equal(await matchesTsquery(entry.id, 'english', 'shipping:A'), true);
    assert.equal(await matchesTsquery(entry.id, 'english', 'post:B'), true);
  });
});
