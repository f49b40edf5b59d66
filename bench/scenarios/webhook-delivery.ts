// webhook delivery: how fast the delivery worker drains pending deliveries to one fast receiver, and the same
// beside a slow receiver of another channel (the fast one must not slow down). The deliveries are bulk-inserted
// while the server is stopped (as a backlog left by a restart would be), then timed at the receiver from the
// first arrival to the last.
import { sql } from 'drizzle-orm';
import { queryRows } from '../../packages/server/src/db/client.ts';
import { DELIVERY_PER_CHANNEL as PER_CHANNEL } from '../../packages/server/src/webhooks/delivery-worker.ts';
import { createAccount, createApiChannel, sendMessageBody } from '../lib/api.ts';
import { load } from '../lib/load.ts';
import { costPer, type Cost } from '../lib/cost.ts';
import { now, startReceiver, type ParleyServer, type Receiver } from '../lib/processes.ts';
import { beside, percentile, row, type Row, type Scenario, type ScenarioContext } from '../lib/scenario.ts';

const SLOW_MS = 1_000;
const SLOW_DELIVERIES = 400;

/** A new_messages payload of the usual size. */
function payload(channelId: string): string {
  return JSON.stringify({
    event: 'new_messages',
    chat: { id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', name: 'Visitor', uniqueId: `${channelId}:ext-1`, externalChatId: 'ext-1', channelName: 'custom' },
    messages: [
      { id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c', role: 'user', senderName: 'Visitor', text: 'How long does shipping take to Lisbon?', attachments: [], createdAt: '2026-11-23T10:00:00.000Z' },
    ],
    settings: { behavior: '', role: '', task: '', greeting: '', isActive: false, aiLang: 'en' },
    timestamp: '2026-11-23T10:00:00.000Z',
  });
}

/** `count` pending deliveries of `channelId`, due now, with their events. */
function seedDeliveries(context: ScenarioContext, accountId: string, channelId: string, count: number): Promise<void> {
  return context.database.use(async (db) => {
    await db.execute(sql`
      WITH made AS (
        INSERT INTO events (id, account_id, channel_id, kind, payload)
        SELECT gen_random_uuid(), ${accountId}, ${channelId}, 'new_messages', ${payload(channelId)}::jsonb
        FROM generate_series(1, ${count}::int)
        RETURNING id)
      INSERT INTO deliveries (id, event_id, account_id, channel_id, next_attempt_at)
      SELECT gen_random_uuid(), id, ${accountId}, ${channelId}, now() FROM made`);
  });
}

/**
 * Waits until `path` has received `count` deliveries. The server's cost is per delivery received between the
 * first reading (the server has just started and may have sent some already) and the end.
 */
async function waitFor(
  server: ParleyServer,
  receiver: Receiver,
  path: string,
  count: number,
  timeoutMs: number,
): Promise<{ count: number; seconds: number; cost: Cost }> {
  const usageBefore = await server.usage();
  const countBefore = (await receiver.stats())[path]?.count ?? 0;
  const deadline = now() + timeoutMs;
  for (;;) {
    const stats = (await receiver.stats())[path];
    if ((stats && stats.count >= count) || now() > deadline) {
      const received = stats?.count ?? 0;
      return {
        count: received,
        seconds: stats ? (stats.lastAt - stats.firstAt) / 1000 : 0,
        cost: costPer(usageBefore, await server.usage(), received - countBefore),
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const LATENCY_MESSAGES = 300;

/**
 * One customer message at a time (agent off): from the answer to its POST, when its transaction has committed,
 * to its webhook's arrival at the receiver.
 */
async function measureLatency(context: ScenarioContext): Promise<{ sorted: number[]; peakRssMb: number | null; cost: Cost }> {
  const receiver = await startReceiver({ record: true });
  const server = await context.startServer();
  try {
    const account = await createAccount(server);
    const channelId = await createApiChannel(account, { name: 'Latency', webhookUrl: `${receiver.url}/latency` });
    const latencies: number[] = [];
    const usageBefore = await server.usage();
    for (let i = 0; i < LATENCY_MESSAGES; i += 1) {
      const text = `latency ${i}`;
      const response = await fetch(`${server.url}/api/v1/chats/chat/send-message-universal`, {
        method: 'POST',
        headers: { authorization: account.key, 'content-type': 'application/json' },
        body: sendMessageBody(channelId, `latency-${i % 20}`, text),
      });
      const committedAt = now();
      await response.arrayBuffer();
      const deadline = committedAt + 10_000;
      for (;;) {
        const arrived = (await receiver.drain()).find((event) => event.texts.includes(text));
        if (arrived) {
          latencies.push(Math.max(0, arrived.at - committedAt));
          break;
        }
        if (now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    // Per customer message: its ingest and its delivery.
    const cost = costPer(usageBefore, await server.usage(), LATENCY_MESSAGES);
    return { sorted: latencies.sort((a, b) => a - b), peakRssMb: (await server.peakRssMb()) ?? null, cost };
  } finally {
    await server.stop();
    await receiver.stop();
  }
}

export const webhookDelivery: Scenario = {
  name: 'webhook-delivery',
  summary: 'deliveries per second to one fast receiver, then the same beside a slow receiver of another channel',
  async run(context) {
    const { db, settings, startServer, log } = context;
    const total = settings.deliveries;
    const receiver = await startReceiver({ slowMs: SLOW_MS });
    try {
      let server = await startServer();
      const account = await createAccount(server);
      const fast = await createApiChannel(account, { name: 'Fast', webhookUrl: `${receiver.url}/fast` });
      const slow = await createApiChannel(account, { name: 'Slow', webhookUrl: `${receiver.url}/slow` });
      const fastAgain = await createApiChannel(account, { name: 'Fast beside slow', webhookUrl: `${receiver.url}/fast-beside-slow` });
      await server.stop();

      // 1. One fast receiver.
      await seedDeliveries(context, account.accountId, fast, total);
      server = await startServer();
      const alone = await waitFor(server, receiver, '/fast', total, 300_000);
      const aloneRss = (await server.peakRssMb()) ?? null;
      await server.stop();
      log(`${alone.count} deliveries to one fast receiver in ${alone.seconds.toFixed(1)} s`);

      // 2. The same beside a receiver that takes 1 s per answer.
      await seedDeliveries(context, account.accountId, slow, SLOW_DELIVERIES);
      await seedDeliveries(context, account.accountId, fastAgain, total);
      server = await startServer();
      const besideSlow = await waitFor(server, receiver, '/fast-beside-slow', total, 300_000);
      const slowSoFar = (await receiver.stats())['/slow']?.count ?? 0;
      const besideRss = (await server.peakRssMb()) ?? null;
      await server.stop();
      const [delivered] = await context.database.use((database) =>
        queryRows<{ n: number }>(database, sql`SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered' AND channel_id IN (${fast}, ${fastAgain})`),
      );

      // 3. Latency, one message at a time.
      const latency = await measureLatency(context);
      log(`latency of ${latency.sorted.length} single deliveries: p50 ${percentile(latency.sorted, 50)?.toFixed(1)} ms`);

      // The ceiling: the same payload posted straight at the receiver, with the worker's per-channel concurrency.
      const ceiling = await load({
        url: `${receiver.url}/ceiling`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'API-Gate-Webhook/1.0' },
        body: payload(fast),
        connections: PER_CHANNEL,
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        usage: receiver.usage,
      });
      const rate = (r: { count: number; seconds: number }) => (r.seconds > 0 ? r.count / r.seconds : 0);
      const target = db === 'postgres' ? 3_000 : 1_000;
      const complete = alone.count >= total && besideSlow.count >= total && (delivered?.n ?? 0) === 2 * total;
      const common = { unit: 'deliveries/s', ...beside(ceiling, `receiver, ${PER_CHANNEL} connections`) };
      const rows: Row[] = [
        row('webhook delivery: one fast receiver', {
          ...common,
          throughput: rate(alone),
          ...alone.cost,
          peakRssMb: aloneRss,
          targets: [
            // Issue #16's target.
            { text: `≥ ${target.toLocaleString('en-US')} deliveries/s on ${db}`, met: rate(alone) >= target },
            { text: 'every delivery delivered', met: complete },
          ],
          notes: [`${total.toLocaleString('en-US')} deliveries, ${alone.count} received, ${delivered?.n ?? 0} of ${2 * total} marked delivered in both runs`],
        }),
        row('webhook delivery: fast beside slow', {
          ...common,
          throughput: rate(besideSlow),
          ...besideSlow.cost,
          peakRssMb: besideRss,
          targets: [{ text: 'fast receiver keeps ≥ 0.8 of its rate alone', met: rate(besideSlow) >= 0.8 * rate(alone) }],
          notes: [`slow receiver answers in ${SLOW_MS} ms; ${slowSoFar} of ${SLOW_DELIVERIES} slow deliveries done meanwhile`],
        }),
        row('webhook delivery: latency, one at a time', {
          unit: 'deliveries/s',
          p50Ms: percentile(latency.sorted, 50),
          p99Ms: percentile(latency.sorted, 99),
          ...latency.cost,
          peakRssMb: latency.peakRssMb,
          targets: [
            { text: 'starts ≤ 50 ms after the commit (p99)', met: (percentile(latency.sorted, 99) ?? Infinity) <= 50 },
            { text: 'every message delivered', met: latency.sorted.length === LATENCY_MESSAGES },
          ],
          notes: [
            `${LATENCY_MESSAGES} customer messages one after another, agent off: from the POST's answer to the webhook's arrival; cost per message, its ingest and delivery`,
          ],
        }),
      ];
      return rows;
    } finally {
      await receiver.stop();
    }
  },
};
