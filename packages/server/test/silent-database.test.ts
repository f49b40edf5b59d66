// A PostgreSQL server that stops answering (issue #32, 2): connections neither refused nor answered, as in a network
// partition or with a stuck server. A relay between the app and PostgreSQL swallows every byte on request. The
// probes answer within 2 s, requests fail with 503 within the configured timeouts, and all recovers afterwards.
// Needs a PostgreSQL server (DATABASE_URL): PGlite runs in the process and cannot go silent.
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../src/db/client.ts';
import { DATABASE_UNAVAILABLE } from '../src/http/error-handler.ts';
import { createServerDatabase } from './support/database.ts';
import { startTestApp } from './support/harness.ts';

const serverUrl = process.env.DATABASE_URL;

/** A TCP relay to `target`; `silence()` makes it swallow every byte both ways, old connections and new. */
async function startRelay(target: URL): Promise<{ port: number; silence(silent: boolean): void; close(): Promise<void> }> {
  let silent = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('data', (chunk) => {
        if (!silent) to.write(chunk);
      });
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return {
    port: address.port,
    silence: (value) => {
      silent = value;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await run();
  return { result, ms: performance.now() - started };
}

test(
  'a silent database: /readyz 503 and /healthz 200 degraded within 2 s, requests 503 within the timeouts, then recovery',
  { skip: serverUrl ? false : 'needs a PostgreSQL server: set DATABASE_URL (PGlite runs in the process and cannot go silent)', timeout: 120_000 },
  async () => {
    const created = await createServerDatabase(serverUrl ?? '');
    const relay = await startRelay(new URL(created.url));
    const viaRelay = new URL(created.url);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    const database = await openDatabase({
      kind: 'postgres',
      url: viaRelay.toString(),
      poolSize: 4,
      timeouts: { connectMs: 1_000, statementMs: 2_000, idleInTransactionMs: 5_000 },
    });
    const t = await startTestApp({ database, workers: false, apiKeyCacheTtlMs: 0 });
    try {
      const { key } = await t.createAccount();
      assert.equal((await t.api(key, '/chats/chat')).status, 200);
      assert.equal((await t.request('GET', '/readyz')).status, 200);

      relay.silence(true);
      const ready = await timed(() => t.request('GET', '/readyz'));
      assert.equal(ready.result.status, 503);
      assert.deepEqual(ready.result.body, { status: 'not ready', failed: 'database', detail: 'the database does not answer' });
      assert.ok(ready.ms < 2_000, `/readyz answered in ${Math.round(ready.ms)} ms`);

      const live = await timed(() => t.request('GET', '/healthz'));
      assert.equal(live.result.status, 200);
      assert.deepEqual(live.result.body, { status: 'degraded', database: 'down' });
      assert.ok(live.ms < 2_000, `/healthz answered in ${Math.round(live.ms)} ms`);

      // Several at once: some take a pooled connection that no longer answers (the read timeout, statement + 1 s),
      // others wait for a connection (the connect timeout). None hangs, none is a 500.
      const requests = await Promise.all(Array.from({ length: 6 }, () => timed(() => t.api(key, '/chats/chat'))));
      for (const { result, ms } of requests) {
        assert.equal(result.status, 503, result.text);
        assert.deepEqual(result.body, { message: DATABASE_UNAVAILABLE, statusCode: 503 });
        assert.equal(result.headers.get('retry-after'), '5');
        assert.ok(ms < 8_000, `a request answered in ${Math.round(ms)} ms`);
      }

      relay.silence(false);
      const deadline = Date.now() + 30_000;
      let status = 0;
      while (Date.now() < deadline && status !== 200) {
        status = (await t.api(key, '/chats/chat')).status;
        if (status !== 200) await sleep(200);
      }
      assert.equal(status, 200, 'requests succeed again once the database answers');
      assert.equal((await t.request('GET', '/readyz')).status, 200);
    } finally {
      await t.close();
      await database.close().catch(() => undefined);
      await relay.close();
      await created.drop();
    }
  },
);
