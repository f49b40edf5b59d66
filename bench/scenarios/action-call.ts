// action call: what an agent action adds to the shop's own answer time (issue #43: ≤ 5 ms). A shop API on this
// machine (node:http, a small JSON order, no delay); an action reading it with a secret header, a checked parameter
// and an answer template. One request at a time, each measured from the benchmark: the shop called directly, the
// console's `GET /actions/{id}` (the same authentication and read of the action), and `POST /actions/{id}/test` (the
// action run for real: values checked, the request built, the guarded call, the JSON read, the answer rendered, the
// run recorded and counted). The action's own overhead is the test call's median less the other two medians.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount } from '../lib/api.ts';
import { costPer } from '../lib/cost.ts';
import { now } from '../lib/processes.ts';
import { percentile, row, type Scenario } from '../lib/scenario.ts';

const TARGET_MS = 5;
const REQUESTS = 500;
const WARMUP = 50;

const ORDER = JSON.stringify({ id: '10482', status: 'shipped', eta: '2026-12-01', items: [{ name: 'Blue scarf', qty: 1 }, { name: 'Wool hat', qty: 2 }] });

async function timed(requests: number, call: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i += 1) await call();
  const times: number[] = [];
  for (let i = 0; i < requests; i += 1) {
    const started = now();
    await call();
    times.push(now() - started);
  }
  return times.sort((a, b) => a - b);
}

export const actionCall: Scenario = {
  name: 'action-call',
  summary: "an agent action's own time beyond the shop's answer (the console's test call, one at a time)",
  async run({ startServer, log }) {
    const shop = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(ORDER);
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    const shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    try {
      const server = await startServer();
      const account = await createAccount(server);
      const action = await account.console<{ id: string }>('POST', '/actions/', {
        name: 'order_status',
        description: 'Look up an order',
        kind: 'read',
        method: 'GET',
        url: `${shopUrl}/api/orders/{{order_number}}`,
        headers: { Authorization: { secret: 'Bearer bench-shop-key-0123456789' } },
        parameters: [{ name: 'order_number', description: 'the order number', type: 'string', pattern: '\\d{5}', required: true, source: 'customer' }],
        answer: 'Order {{id}} is {{status}}, arriving {{eta}}.{{#items}} {{qty}}× {{name}}{{/items}}',
      });
      const token = await account.consoleToken(server);
      const headers = { authorization: `Bearer ${token}` };
      const direct = await timed(REQUESTS, async () => {
        await (await fetch(`${shopUrl}/api/orders/10482`)).text();
      });
      const read = await timed(REQUESTS, async () => {
        const res = await fetch(`${server.url}/console/v1/actions/${action.id}`, { headers });
        if (!res.ok) throw new Error(`GET action: ${res.status}`);
        await res.text();
      });
      const before = await server.usage();
      const tested = await timed(REQUESTS, async () => {
        const res = await fetch(`${server.url}/console/v1/actions/${action.id}/test`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ parameters: { order_number: '10482' } }),
        });
        const body = (await res.json()) as { outcome: string };
        if (!res.ok || body.outcome !== 'ok') throw new Error(`test: ${res.status} ${JSON.stringify(body)}`);
      });
      const cost = costPer(before, await server.usage(), REQUESTS + WARMUP);
      const median = (times: number[]) => percentile(times, 50) ?? 0;
      const overhead = median(tested) - median(read) - median(direct);
      log(`shop ${median(direct).toFixed(2)} ms, GET action ${median(read).toFixed(2)} ms, test call ${median(tested).toFixed(2)} ms: overhead ${overhead.toFixed(2)} ms`);
      return [
        row("action call: the action's own time beyond the shop's answer", {
          unit: 'calls/s',
          throughput: 1000 / median(tested),
          p50Ms: median(tested),
          p99Ms: percentile(tested, 99),
          ...cost,
          peakRssMb: (await server.peakRssMb()) ?? null,
          targets: [{ text: `overhead ≤ ${TARGET_MS} ms (measured ${overhead.toFixed(2)} ms at the median)`, met: overhead <= TARGET_MS }],
          notes: [
            `medians of ${REQUESTS} sequential requests: shop direct ${median(direct).toFixed(2)} ms, GET /actions/{id} ${median(read).toFixed(2)} ms, POST /actions/{id}/test ${median(tested).toFixed(2)} ms (p99 ${percentile(tested, 99)?.toFixed(2)} ms)`,
            'overhead = test call − GET of the action (same authentication and read) − the shop called directly; the statements per call include the run recorded',
          ],
        }),
      ];
    } finally {
      await new Promise<void>((resolve) => shop.close(() => resolve()));
    }
  },
};
