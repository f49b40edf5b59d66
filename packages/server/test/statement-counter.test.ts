// The benchmark's statement counter (db/statement-counter.ts): every statement sent to the database is counted,
// BEGIN and COMMIT included, on PGlite and on PostgreSQL; SIGUSR2 writes the count to the named file.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import { eq, sql } from 'drizzle-orm';
import type pg from 'pg';
import type { DatabaseHandle } from '../src/db/client.ts';
import { tags } from '../src/db/schema.ts';
import { createStatementCounter, reportStatementsOnSignal } from '../src/db/statement-counter.ts';
import { openTestDatabase } from './support/database.ts';
import { eventually } from './support/events.ts';

describe('statement counter', () => {
  const counter = createStatementCounter();
  let database: DatabaseHandle;

  before(async () => {
    database = await openTestDatabase({ statementCounter: counter });
  });
  after(() => database.close());

  /** Statements counted while `work` runs. */
  async function counted(work: () => Promise<unknown>): Promise<number> {
    const before = counter.statements;
    await work();
    return counter.statements - before;
  }

  test('a transaction of two statements is four: BEGIN, both, COMMIT', async () => {
    const statements = await counted(() =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT 1`);
        await tx.select().from(tags).where(eq(tags.name, 'none'));
      }),
    );
    assert.equal(statements, 4);
  });

  test('a rolled-back transaction counts its ROLLBACK', async () => {
    const statements = await counted(() =>
      database.db
        .transaction(async (tx) => {
          await tx.execute(sql`SELECT 1`);
          throw new Error('abandoned');
        })
        .catch((error: unknown) => assert.equal((error as Error).message, 'abandoned')),
    );
    assert.equal(statements, 3);
  });

  test('a statement outside a transaction is one, and one that fails as it runs is counted too', async () => {
    assert.equal(await counted(() => database.db.execute(sql`SELECT count(*) FROM tags`)), 1);
    const failing = sql`SELECT 1 / (count(*) - count(*)) FROM tags`;
    assert.equal(await counted(() => database.db.execute(failing).catch(() => undefined)), 1);
  });

  test("statements sent straight on the driver count too (fixed hot-path statements bypass Drizzle)", async () => {
    const client = (database.db as unknown as { $client: unknown }).$client;
    if (database.kind === 'pglite') {
      const pglite = client as PGlite;
      assert.equal(await counted(() => pglite.query('SELECT $1::int AS n', [1])), 1);
      assert.equal(await counted(() => pglite.exec('SELECT 1')), 1);
      assert.equal(await counted(() => pglite.transaction(async (tx) => tx.query('SELECT 1'))), 3);
    } else {
      const pool = client as pg.Pool;
      const statement = { name: 'statement-counter-test', text: 'SELECT $1::int AS n', values: [1] };
      assert.equal(await counted(() => pool.query(statement)), 1);
      assert.equal(await counted(() => pool.query(statement)), 1); // prepared already: still one statement
    }
  });

  test('SIGUSR2 writes the count to the file, numbering the reports', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'parley-statements-'));
    const file = path.join(dir, 'statements.json');
    const stop = reportStatementsOnSignal(counter, file);
    try {
      const read = async () => JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as { statements?: number; reports?: number };
      process.kill(process.pid, 'SIGUSR2');
      assert.deepEqual(await eventually(async () => ((await read()).reports === 1 ? read() : undefined)), {
        statements: counter.statements,
        reports: 1,
      });
      await database.db.execute(sql`SELECT 1`);
      process.kill(process.pid, 'SIGUSR2');
      assert.deepEqual(await eventually(async () => ((await read()).reports === 2 ? read() : undefined)), {
        statements: counter.statements,
        reports: 2,
      });
    } finally {
      stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a file that cannot be written is a warning, not a crash', async () => {
    const stop = reportStatementsOnSignal(counter, path.join(os.tmpdir(), 'parley-no-such-folder', 'statements.json'));
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      process.kill(process.pid, 'SIGUSR2');
      const warning = await eventually(async () => warnings[0]);
      assert.match(warning, /^PARLEY_COUNT_STATEMENTS: cannot write .*parley-no-such-folder\/statements\.json: ENOENT/);
    } finally {
      process.off('warning', onWarning);
      stop();
    }
  });
});
