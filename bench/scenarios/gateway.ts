// gateway: an authenticated GET /api/v1/chats/chat?limit=1 on an empty account. Auth (key lookup, cached), rate
// limit, validation, one list query and serialization, against a bare node:http server answering the same bytes.
import { createAccount } from '../lib/api.ts';
import { load, responseBytes } from '../lib/load.ts';
import { failureNotes, measureCeiling, measured, row, type Scenario } from '../lib/scenario.ts';

const CONNECTIONS = 16;

export const gateway: Scenario = {
  name: 'gateway',
  summary: 'authenticated GET /api/v1/chats/chat?limit=1 on an empty account',
  async run({ settings, startServer }) {
    const server = await startServer();
    const account = await createAccount(server);
    const url = `${server.url}/api/v1/chats/chat?limit=1`;
    const headers = { authorization: account.key };
    const bytes = await responseBytes(url, { headers });
    const options = { headers, connections: CONNECTIONS, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds };
    const parley = await load({ ...options, url });
    const peakRssMb = (await server.peakRssMb()) ?? null;
    await server.stop();
    const ceiling = await measureCeiling(bytes, 200, options);
    const ratio = parley.throughput / ceiling.throughput;
    return [
      row('gateway', {
        unit: 'req/s',
        ...measured(parley),
        ceiling: ceiling.throughput,
        ceilingOf: 'node:http',
        peakRssMb,
        targets: [{ text: '≥ 0.55 of the ceiling', met: ratio >= 0.55 }],
        notes: [`${CONNECTIONS} connections, ${bytes}-byte answer`, ...failureNotes(parley)],
      }),
    ];
  },
};
