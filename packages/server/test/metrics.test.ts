// Prometheus metrics (docs/operations.md, Metrics): GET /metrics behind METRICS_TOKEN or on METRICS_PORT, the
// counters after real traffic (customer messages through the public API, the agent's replies, webhook deliveries
// to a local receiver), route labels that are templates, the jobs gauge, and Debian's real Prometheus tools
// reading the output: `promtool check metrics` and a `prometheus` server scraping the app.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test, type TestOptions } from 'node:test';
import { sql } from 'drizzle-orm';
import { newId } from '../src/lib/ids.ts';
import { isCi } from './support/chromium.mjs';
import { eventually } from './support/events.ts';
import { reply, startFakeLlm, type FakeLlm } from './support/fake-llm.ts';
import { freePort, startTestApp, type TestApp } from './support/harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const TOKEN = 'metrics-token-0123456789abcdef0123456789';
const PROMTOOL = process.env.PROMTOOL_PATH || '/usr/bin/promtool';
const PROMETHEUS = process.env.PROMETHEUS_PATH || '/usr/bin/prometheus';

/** Under CI the Prometheus tools must be there (.ci/run installs them); elsewhere a missing one skips its test, saying how to enable it. */
function unlessFound(binary: string, variable: string): TestOptions {
  try {
    accessSync(binary, constants.X_OK);
    return {};
  } catch {
    if (isCi()) return {};
    return { skip: `no ${binary}; to run this test, install Debian's prometheus (apt-get install prometheus) or set ${variable}` };
  }
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (no escaped quotes in our label values). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)) labels[pair[1] as string] = pair[2] as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample of `name` whose labels are exactly `labels`; undefined when there is none. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (sample) =>
      sample.name === name &&
      Object.keys(sample.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]?.value;
}

async function scrape(t: TestApp): Promise<{ text: string; samples: Sample[] }> {
  const res = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200, res.text);
  return { text: res.text, samples: parse(res.text) };
}

describe('GET /metrics without METRICS_TOKEN or METRICS_PORT', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('is not served: 404 with or without a token', async () => {
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }] as Record<string, string>[]) {
      const res = await t.request('GET', '/metrics', { headers });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { message: 'Route GET /metrics not found', statusCode: 404 });
    }
  });
});

describe('GET /metrics with METRICS_TOKEN, after real traffic', { concurrency: false }, () => {
  let t: TestApp;
  let receiver: Receiver;
  let llm: FakeLlm;

  before(async () => {
    receiver = await startReceiver();
    llm = await startFakeLlm();
    // A model server that refuses (4xx): the engine fails at once, without retries.
    llm.script('/v1/chat/completions', reply.status(400));
    t = await startTestApp({ webhookAllowPrivateNetworks: true, metricsToken: TOKEN });
  });
  after(async () => {
    await t.close();
    await receiver.close();
    await llm.close();
  });

  test('a missing or wrong token is 401 (the route exists once METRICS_TOKEN is set); the right one 200', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, TOKEN, `Basic ${TOKEN}`]) {
      const res = await t.request('GET', '/metrics', { headers: authorization ? { authorization } : {} });
      assert.equal(res.status, 401, String(authorization));
      assert.deepEqual(res.body, { message: 'Unauthorized', statusCode: 401 });
    }
    const res = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const samples = parse(res.text);
    // prom-client's default metrics, the event loop's lag among them, in this app's own registry.
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds']) {
      assert.ok(samples.some((sample) => sample.name === name), name);
    }
    // Every known label value is there from the start; handoff stays 0 until the handoff to the team exists.
    assert.equal(valueOf(samples, 'parley_agent_replies_total', { engine: 'knowledge-base', outcome: 'handoff' }), 0);
    assert.equal(valueOf(samples, 'parley_webhook_deliveries_total', { outcome: 'failed' }), 0);
    assert.equal(valueOf(samples, 'parley_messages_ingested_total', { channel_kind: 'widget' }), 0);
    // No pool on PGlite; a PostgreSQL pool has its gauges.
    assert.equal(samples.some((sample) => sample.name === 'parley_db_pool_connections'), process.env.DATABASE_URL !== undefined);
    if (process.env.DATABASE_URL) {
      assert.equal(valueOf(samples, 'parley_db_pool_max_connections'), 5); // support/database.ts's pool size
      assert.ok((valueOf(samples, 'parley_db_pool_connections') ?? 0) >= 1);
      assert.equal(valueOf(samples, 'parley_db_pool_waiting_queries'), 0);
    }
  });

  test('messages through the public API, the agent replies and the webhook deliveries are counted with their labels', { timeout: 60_000 }, async () => {
    // The receiver refuses its first request once (a retry after 2 s), then takes everything.
    let refused = false;
    receiver.respond((_request, res) => {
      if (!refused) {
        refused = true;
        res.writeHead(503).end('busy');
        return;
      }
      res.end('ok');
    });
    const user = await t.createConsoleUser();
    const base = await t.console<{ id: string }>(user.token, 'POST', '/knowledge-bases', { body: { name: 'FAQ', language: 'en' } });
    assert.equal(base.status, 201, base.text);
    const entry = await t.console(user.token, 'POST', `/knowledge-bases/${base.body.id}/entries`, {
      body: { question: 'How long does shipping take?', answer: 'Shipping takes 3 to 5 business days.' },
    });
    assert.equal(entry.status, 201, entry.text);
    const connect = async (body: Record<string, unknown>) => {
      const res = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { webhookUrl: `${receiver.url}/hook`, ...body } });
      assert.equal(res.status, 201, res.text);
      return res.body.id;
    };
    const kbChannel = await connect({ name: 'Support', knowledgeBaseId: base.body.id });
    const modelChannel = await connect({
      name: 'Model',
      agentEngine: { kind: 'openai-compatible', baseUrl: `${llm.url}/v1`, model: 'test-model', apiKey: 'sk-test', timeoutSeconds: 5 },
    });
    const send = async (channelId: string, externalChatId: string, text: string, role = 'user') => {
      const res = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
        headers: { authorization: user.key },
        body: { channel: 'custom', channelId, externalChatId, role, text },
      });
      assert.equal(res.status, 201, res.text);
    };
    await send(kbChannel, 'answered', 'How long does shipping take?');
    await send(kbChannel, 'fallback', 'Do you repair bicycles?');
    await send(modelChannel, 'failed', 'Hello?');
    // A team message recorded through the API is ingested too (context: no event, no reply).
    await send(kbChannel, 'answered', 'A colleague will call you.', 'assistant');

    // 3 customer messages and 2 replies make 5 new_messages events, one delivery each; one attempt was refused.
    const { samples } = await eventually(async () => {
      const scraped = await scrape(t);
      const delivered = valueOf(scraped.samples, 'parley_webhook_deliveries_total', { outcome: 'delivered' });
      const replies = valueOf(scraped.samples, 'parley_agent_reply_duration_seconds_count');
      return delivered === 5 && replies === 3 && scraped;
    }, 30_000);
    // Every request the receiver got beyond the 5 delivered was an attempt counted as retried (at least the refused
    // one; on a loaded machine an answer can also come after the 2 s timeout).
    const retried = valueOf(samples, 'parley_webhook_deliveries_total', { outcome: 'retried' }) ?? 0;
    assert.ok(retried >= 1);
    assert.equal(receiver.requests.length, 5 + retried);

    assert.equal(valueOf(samples, 'parley_messages_ingested_total', { channel_kind: 'custom' }), 4);
    assert.equal(valueOf(samples, 'parley_messages_ingested_total', { channel_kind: 'telegram' }), 0);
    const replies = (engine: string, outcome: string) => valueOf(samples, 'parley_agent_replies_total', { engine, outcome });
    assert.deepEqual(
      ['answered', 'fallback', 'handoff', 'failed'].map((outcome) => [replies('knowledge-base', outcome), replies('openai-compatible', outcome)]),
      [[1, 0], [1, 0], [0, 0], [0, 1]],
    );
    assert.ok((valueOf(samples, 'parley_agent_reply_duration_seconds_sum') ?? 0) > 0);
    assert.equal(valueOf(samples, 'parley_webhook_deliveries_total', { outcome: 'failed' }), 0);
    // The lag runs from the event's creation: the refused delivery waited the 2 s pause before it got through.
    assert.equal(valueOf(samples, 'parley_webhook_delivery_lag_seconds_count'), 5);
    assert.equal(valueOf(samples, 'parley_webhook_delivery_lag_seconds_bucket', { le: '+Inf' }), 5);
    assert.ok((valueOf(samples, 'parley_webhook_delivery_lag_seconds_sum') ?? 0) >= 2);
    assert.ok((valueOf(samples, 'parley_webhook_delivery_lag_seconds_bucket', { le: '1' }) ?? 0) <= 4);
    assert.equal(
      valueOf(samples, 'http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/chats/chat/send-message-universal', status_code: '201' }),
      4,
    );
    // Nothing is left in the jobs table.
    for (const state of ['queued', 'running', 'scheduled']) assert.equal(valueOf(samples, 'parley_jobs', { kind: 'agent.reply', state }), 0);
  });

  test('the route label is the route template, never the raw URL; unmatched routes share one value', async () => {
    const user = await t.createConsoleUser();
    const channel = await t.console<{ id: string }>(user.token, 'POST', '/channel/custom/connect/', { body: { name: 'Routes', disableAgentResponses: true } });
    assert.equal(channel.status, 201, channel.text);
    const sent = await t.request('POST', '/api/v1/chats/chat/send-message-universal', {
      headers: { authorization: user.key },
      body: { channel: 'custom', channelId: channel.body.id, externalChatId: 'routes', role: 'user', text: 'Hello' },
    });
    assert.equal(sent.status, 201, sent.text);
    const list = await t.api<{ chats: { id: string }[] }>(user.key, '/chats/chat', { limit: '1' });
    const chatId = list.body.chats[0]?.id;
    assert.ok(chatId, list.text);
    const petId = '918273645546372819';
    const stray = newId();
    assert.equal((await t.api(user.key, '/chats/chat/read', { id: chatId })).status, 200);
    assert.equal((await t.request('GET', `/demo/v1/pets/${petId}`, { headers: { authorization: `Bearer ${user.key}` } })).status, 404);
    const other = await t.createConsoleUser();
    assert.equal((await t.console(other.token, 'GET', `/chat/messages/${chatId}/`)).status, 404);
    assert.equal((await t.request('GET', `/no-such-page/${stray}`)).status, 404);
    assert.equal((await t.request('GET', `/api/v1/no-such-route/${stray}`, { headers: { authorization: user.key } })).status, 404);

    const { text, samples } = await scrape(t);
    const count = (method: string, route: string, status: string) =>
      valueOf(samples, 'http_request_duration_seconds_count', { method, route, status_code: status });
    assert.equal(count('GET', '/api/v1/chats/chat/read', '200'), 1);
    assert.equal(count('GET', '/demo/v1/pets/:petId', '404'), 1);
    assert.equal(count('GET', '/console/v1/chat/messages/:chatId/', '404'), 1);
    assert.equal(count('GET', 'unmatched', '404'), 2);
    for (const raw of [chatId, petId, stray, 'no-such']) assert.ok(!text.includes(raw), `${raw} appears in the metrics`);
    const routes = new Set(samples.filter((sample) => sample.name === 'http_request_duration_seconds_count').map((sample) => sample.labels.route));
    for (const route of routes) assert.ok(route === 'unmatched' || route?.startsWith('/'), String(route));
  });

  test('promtool check metrics finds no problem in the output', unlessFound(PROMTOOL, 'PROMTOOL_PATH'), async () => {
    const { text } = await scrape(t);
    const checked = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(checked.error, undefined);
    assert.equal(`${checked.stdout}${checked.stderr}`, '');
    assert.equal(checked.status, 0);
  });

  test('a real prometheus server scrapes the app every second with the bearer token', { ...unlessFound(PROMETHEUS, 'PROMETHEUS_PATH'), timeout: 120_000 }, async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'parley-prometheus-'));
    const port = await freePort();
    const config = path.join(dir, 'prometheus.yml');
    await writeFile(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        'scrape_configs:',
        '  - job_name: parley',
        '    authorization:',
        '      type: Bearer',
        `      credentials: ${TOKEN}`,
        '    static_configs:',
        `      - targets: ['${new URL(t.url).host}']`,
        '',
      ].join('\n'),
    );
    let output = '';
    const prometheus = spawn(
      PROMETHEUS,
      [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    prometheus.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<void>((resolve) => prometheus.once('exit', () => resolve()));
    try {
      const series = await eventually(async () => {
        if (prometheus.exitCode !== null) throw new Error(`prometheus exited with ${prometheus.exitCode}:\n${output}`);
        const answer = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=parley_messages_ingested_total`).catch(() => undefined);
        if (!answer?.ok) return false;
        const body = (await answer.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
        return body.data.result.length > 0 && body.data.result;
      }, 60_000).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}\nprometheus output:\n${output}`);
      });
      // No message is sent meanwhile: Prometheus has the value the app shows (4 + 1 from the tests above).
      const custom = series.find((entry) => entry.metric.channel_kind === 'custom');
      assert.equal(custom?.metric.job, 'parley');
      assert.equal(custom?.value[1], '5');
      assert.equal(valueOf((await scrape(t)).samples, 'parley_messages_ingested_total', { channel_kind: 'custom' }), 5);
    } finally {
      prometheus.kill('SIGTERM');
      const timer = setTimeout(() => prometheus.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('METRICS_PORT', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    port = await freePort();
    // An API-only process: no worker claims the jobs this test puts in the table.
    t = await startTestApp({ metricsPort: port, workers: false });
  });
  after(() => t.close());

  test('serves /metrics on its own port without a token, and nothing else; the app port has no /metrics', async () => {
    assert.equal((await t.request('GET', '/healthz')).status, 200);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const samples = parse(await res.text());
    assert.equal(valueOf(samples, 'http_request_duration_seconds_count', { method: 'GET', route: '/healthz', status_code: '200' }), 1);
    for (const other of ['/', '/healthz', '/api/v1/chats/chat', '/metrics/x']) {
      const answer = await fetch(`http://127.0.0.1:${port}${other}`);
      assert.equal(answer.status, 404, other);
      await answer.arrayBuffer();
    }
    assert.equal((await t.request('GET', '/metrics')).status, 404);
  });

  test('parley_jobs counts the jobs table by kind and state at scrape time', async () => {
    const insert = (kind: string, runAt: string, lockedUntil: string | null) =>
      t.database.db.execute(
        sql`INSERT INTO jobs (id, kind, payload, run_at, locked_until)
            VALUES (${newId()}, ${kind}, '{}'::jsonb, now() + ${runAt}::interval, now() + ${lockedUntil}::interval)`,
      );
    await insert('crm.sync', '0 seconds', null);
    await insert('crm.sync', '0 seconds', null);
    await insert('crm.sync', '1 hour', null);
    await insert('agent.reply', '0 seconds', '1 minute');
    // A lease that ran out (a crashed holder): due again, so queued.
    await insert('agent.reply', '0 seconds', '-1 minute');
    const samples = parse(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
    const jobs = (kind: string, state: string) => valueOf(samples, 'parley_jobs', { kind, state });
    assert.deepEqual(
      [jobs('crm.sync', 'queued'), jobs('crm.sync', 'scheduled'), jobs('crm.sync', 'running'), jobs('agent.reply', 'running'), jobs('agent.reply', 'queued')],
      [2, 1, 0, 1, 1],
    );
    assert.equal(jobs('messenger.send', 'queued'), 0);
  });
});
