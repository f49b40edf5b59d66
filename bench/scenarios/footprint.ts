// footprint (issue #29): what a small server sees. The first start on an empty DATA_DIR (PGlite's initdb and every
// migration) and a restart on the same folder, each timed from the spawn of `node` to /healthz's first 200; the
// resident memory of the server (and its child processes) idle after the restart; then its peak under the
// gateway's list, ingest, and chat-list pages over the chats ingest made, one after another on that one server.
import { setTimeout as sleep } from 'node:timers/promises';
import { createAccount, createApiChannel, sendMessageBody } from '../lib/api.ts';
import { load } from '../lib/load.ts';
import type { ParleyServer, Usage } from '../lib/processes.ts';
import { failureNotes, row, type Row, type Scenario, type Target } from '../lib/scenario.ts';

/** Issue #29's ceilings. */
const FIRST_START_MS = 8_000;
const RESTART_MS = 2_000;
const IDLE_RSS_MIB = 250;
/**
 * How long the server is left alone before its idle RSS is read (the start's garbage collected, timers settled): its
 * second half also holds a few of the background polls (every 5 s on PGlite), whose CPU is the idle server's.
 */
const IDLE_SECONDS = 20;

interface Idle {
  /** The median of one RSS reading a second over the last half, MiB. */
  rssMb: number | null;
  /** The server's CPU over the last half (its background work: polls, heartbeats), ms per second. */
  cpuMsPerSecond: number | null;
  /** SQL statements it sent meanwhile, per minute. */
  statementsPerMinute: number | null;
}

/** The server after IDLE_SECONDS without a request. */
async function idleReadings(server: ParleyServer): Promise<Idle> {
  const readings: number[] = [];
  let start: Usage | undefined;
  for (let second = 1; second <= IDLE_SECONDS; second += 1) {
    await sleep(1_000);
    if (second === IDLE_SECONDS / 2) start = await server.usage();
    const rss = await server.rssMb();
    if (second > IDLE_SECONDS / 2 && rss !== undefined) readings.push(rss);
  }
  const end = await server.usage();
  readings.sort((a, b) => a - b);
  const seconds = IDLE_SECONDS / 2;
  const per = (from: number | undefined, to: number | undefined, scale: number) =>
    from === undefined || to === undefined ? null : Math.round(((to - from) * scale) / seconds);
  return {
    rssMb: readings[Math.floor(readings.length / 2)] ?? null,
    cpuMsPerSecond: per(start?.cpuUs, end.cpuUs, 1 / 1000),
    statementsPerMinute: per(start?.statements, end.statements, 60),
  };
}

const within = (text: string, value: number | null, most: number): Target => ({ text, met: value !== null && value <= most });

export const footprint: Scenario = {
  name: 'footprint',
  summary: 'first start and restart to /healthz, idle RSS and CPU, peak RSS under gateway, ingest and chat-list load',
  async run({ db, settings, startServer, log }) {
    const rows: Row[] = [];
    const pglite = db === 'pglite';
    const first = await startServer();
    const firstIdle = (await idleReadings(first)).rssMb;
    const firstPeak = (await first.peakRssMb()) ?? null;
    await first.stop();
    rows.push(
      row('footprint: first start', {
        unit: 'ms to /healthz',
        throughput: first.readyMs,
        peakRssMb: firstPeak,
        targets: pglite ? [within(`≤ ${FIRST_START_MS / 1000} s (a new data folder)`, first.readyMs, FIRST_START_MS)] : [],
        notes: [`empty DATA_DIR; idle RSS afterwards ${firstIdle ?? '–'} MiB`],
      }),
    );

    const server = await startServer();
    const idle = await idleReadings(server);
    rows.push(
      row('footprint: restart', {
        unit: 'ms to /healthz',
        throughput: server.readyMs,
        peakRssMb: (await server.peakRssMb()) ?? null,
        targets: [within(`≤ ${RESTART_MS / 1000} s`, server.readyMs, RESTART_MS)],
        notes: ['the same DATA_DIR'],
      }),
      row('footprint: idle', {
        unit: 'MiB RSS',
        throughput: idle.rssMb,
        peakRssMb: (await server.peakRssMb()) ?? null,
        targets: pglite ? [within(`idle RSS ≤ ${IDLE_RSS_MIB} MiB (the process and its children)`, idle.rssMb, IDLE_RSS_MIB)] : [],
        notes: [
          `after ${IDLE_SECONDS} s without a request (median of the last ${IDLE_SECONDS / 2} readings)`,
          `idle CPU ${idle.cpuMsPerSecond ?? '–'} ms/s and ${idle.statementsPerMinute ?? '–'} SQL statements a minute over those ${IDLE_SECONDS / 2} s`,
        ],
      }),
    );

    const account = await createAccount(server);
    const channelId = await createApiChannel(account, { agent: false });
    const headers = { authorization: account.key };
    const seconds = settings.seconds;
    const list = await load({ url: `${server.url}/api/v1/chats/chat?limit=1`, headers, connections: 16, seconds, expectStatus: 200 });
    const afterGateway = (await server.peakRssMb()) ?? null;
    let sent = 0;
    const ingest = await load({
      url: `${server.url}/api/v1/chats/chat/send-message-universal`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      nextBody: () => {
        sent += 1;
        return sendMessageBody(channelId, `chat-${sent % 10_000}`, `Hello, this is message ${sent}.`, `m-${sent}`);
      },
      connections: 32,
      seconds,
    });
    const afterIngest = (await server.peakRssMb()) ?? null;
    const pages = await load({ url: `${server.url}/api/v1/chats/chat?limit=100`, headers, connections: 4, seconds, expectStatus: 200 });
    const afterList = (await server.peakRssMb()) ?? null;
    log(`peak RSS: ${afterGateway} MiB after gateway, ${afterIngest} after ingest, ${afterList} after chat list`);
    const phases: [string, number | null, typeof list, string][] = [
      ['gateway', afterGateway, list, 'GET /api/v1/chats/chat?limit=1, 16 connections'],
      ['+ ingest', afterIngest, ingest, `send-message-universal, 32 connections, ${sent.toLocaleString('en-US')} messages into 10,000 chats`],
      ['+ chat list', afterList, pages, 'GET /api/v1/chats/chat?limit=100 over those chats, 4 connections'],
    ];
    for (const [name, peak, result, note] of phases) {
      rows.push(
        row(`footprint: peak, ${name}`, {
          unit: name === '+ ingest' ? 'msg/s' : 'req/s',
          throughput: result.throughput,
          p50Ms: result.p50Ms,
          p99Ms: result.p99Ms,
          peakRssMb: peak,
          notes: [`${note}; ${seconds} s each on the restarted server, one after another`, ...failureNotes(result)],
        }),
      );
    }
    await server.stop();
    return rows;
  },
};
