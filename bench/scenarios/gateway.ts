// gateway: an authenticated GET /api/v1/chats/chat?limit=1 on an empty account. Auth (key lookup, cached), rate
// limit, validation, one list query and serialization, against a bare node:http server answering the same bytes.
// gateway-reject: the same request with an unknown parameter, rejected with 400 before any database work: the
// gateway's own overhead. Sent again and again, it is answered from the gateway's memory of refusals after its first
// two full answers of each second (http/public/refusal-memory.ts: rate limit, request id and headers, no validation
// or access line of its own); a second row sends a new query each time (`bogus=<n>`, the same answer), which takes
// the full way (auth, rate limit, validation, error serialization and logging).
import type { DatabaseKind } from '../lib/database.ts';
import { createAccount } from '../lib/api.ts';
import { load, responseBytes, type LoadResult } from '../lib/load.ts';
import { beside, failureNotes, measureCeiling, measured, row, type Row, type Scenario, type ScenarioContext, type Target } from '../lib/scenario.ts';

const CONNECTIONS = 16;

interface Variant {
  name: string;
  query: string;
  /** Each request's own query instead (the same answer), so none is answered from memory; `shown` in the notes. */
  nextQuery?: () => string;
  shown?: string;
  targets: (ratio: number) => Target[];
}

/** The variants' loads on one server, each beside one ceiling answering the same bytes (their answers are alike). */
async function measureGateway({ settings, startServer }: ScenarioContext, status: number, variants: Variant[]): Promise<Row[]> {
  const server = await startServer();
  const account = await createAccount(server);
  const headers = { authorization: account.key };
  const options = { headers, connections: CONNECTIONS, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, expectStatus: status };
  const first = variants[0];
  if (first === undefined) throw new Error('a gateway scenario measures at least one variant');
  const bytes = await responseBytes(`${server.url}/api/v1/chats/chat?${first.query}`, { headers }, status);
  const loads: LoadResult[] = [];
  for (const { query, nextQuery } of variants) {
    const url = `${server.url}/api/v1/chats/chat?${query}`;
    loads.push(await load({ ...options, url, ...(nextQuery ? { nextPath: () => `/api/v1/chats/chat?${nextQuery()}` } : {}), usage: server.usage }));
  }
  const peakRssMb = (await server.peakRssMb()) ?? null;
  await server.stop();
  const ceiling = await measureCeiling(bytes, status, options);
  return variants.map(({ name, query, shown, targets }, index) => {
    const parley = loads[index] as LoadResult;
    return row(name, {
      unit: 'req/s',
      ...measured(parley),
      ...beside(ceiling),
      peakRssMb,
      targets: targets(parley.throughput / ceiling.throughput),
      notes: [
        `GET /api/v1/chats/chat?${shown ?? query} → ${status}, ${CONNECTIONS} connections, ${bytes}-byte answer`,
        ...failureNotes(parley),
      ],
    });
  });
}

/** Issue #16: the list through the gateway reaches a quarter of the ceiling on PostgreSQL. */
const listTargets = (db: DatabaseKind) => (ratio: number) => (db === 'postgres' ? [{ text: '≥ 0.25 of the ceiling on postgres', met: ratio >= 0.25 }] : []);

export const gateway: Scenario = {
  name: 'gateway',
  summary: 'authenticated GET /api/v1/chats/chat?limit=1 on an empty account',
  async run(context) {
    return measureGateway(context, 200, [{ name: 'gateway', query: 'limit=1', targets: listTargets(context.db) }]);
  },
};

export const gatewayReject: Scenario = {
  name: 'gateway-reject',
  summary: 'authenticated GET /api/v1/chats/chat?limit=1&bogus=1, rejected with 400 (no database work), and with a new query each time',
  async run(context) {
    let sent = 0;
    return measureGateway(context, 400, [
      { name: 'gateway-reject', query: 'limit=1&bogus=1', targets: (ratio) => [{ text: '≥ 0.55 of the ceiling', met: ratio >= 0.55 }] },
      {
        name: 'gateway-reject, each query new',
        query: 'limit=1&bogus=0',
        nextQuery: () => `limit=1&bogus=${(sent += 1)}`,
        shown: 'limit=1&bogus=<n> (a new query each time)',
        targets: () => [],
      },
    ]);
  },
};
