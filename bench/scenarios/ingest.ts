// ingest: customer messages through send-message-universal (JSON, agent off, no webhook) from many external
// chats, each message unique. Every one is a transaction: the chat (made on its first message), the message, the
// event.
import { createAccount, createApiChannel, sendMessageBody } from '../lib/api.ts';
import { load } from '../lib/load.ts';
import { beside, failureNotes, measureCeiling, measured, row, statementsTarget, type Scenario } from '../lib/scenario.ts';

const CONNECTIONS = 32;
const EXTERNAL_CHATS = 10_000;

export const ingest: Scenario = {
  name: 'ingest',
  summary: 'POST /api/v1/chats/chat/send-message-universal (JSON, agent off) from 10,000 external chats',
  async run({ db, settings, startServer }) {
    const server = await startServer();
    const account = await createAccount(server);
    const channelId = await createApiChannel(account, { agent: false });
    let sent = 0;
    const nextBody = () => {
      sent += 1;
      return sendMessageBody(channelId, `chat-${sent % EXTERNAL_CHATS}`, `Hello, this is message ${sent}.`, `m-${sent}`);
    };
    const options = {
      method: 'POST' as const,
      headers: { authorization: account.key, 'content-type': 'application/json' },
      connections: CONNECTIONS,
      seconds: settings.seconds,
      warmupSeconds: settings.warmupSeconds,
    };
    const parley = await load({ ...options, url: `${server.url}/api/v1/chats/chat/send-message-universal`, nextBody, usage: server.usage });
    const peakRssMb = (await server.peakRssMb()) ?? null;
    await server.stop();
    const ceiling = await measureCeiling(0, 201, { ...options, body: nextBody() });
    // Issue #16's targets.
    const target = db === 'postgres' ? 4_000 : 2_000;
    return [
      row('ingest', {
        unit: 'msg/s',
        ...measured(parley),
        ...beside(ceiling),
        peakRssMb,
        targets: [
          { text: `≥ ${target.toLocaleString('en-US')} msg/s on ${db}`, met: parley.throughput >= target },
          statementsTarget(parley.cost.statements, 1.2, 'message'),
        ],
        notes: [`${CONNECTIONS} connections`, ...failureNotes(parley, 'messages')],
      }),
    ];
  },
};
