import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import pino from 'pino';
import { createLeaseHeartbeat } from './lease-heartbeat.ts';

// The heartbeat's timer does not hold the process open (unref): the tests keep it alive while they wait.
let keepAlive: NodeJS.Timeout;
beforeEach(() => (keepAlive = setInterval(() => {}, 1000)));
afterEach(() => clearInterval(keepAlive));

/** Resolves at the next renewal, with the ids it renewed. */
function renewals() {
  const seen: string[][] = [];
  let next: ((ids: string[]) => void) | undefined;
  return {
    seen,
    renew: async (held: [string, string][]) => {
      const ids = held.map(([id]) => id);
      seen.push([...ids].sort());
      next?.(ids);
    },
    nextRenewal: () => new Promise<string[]>((resolve) => (next = resolve)),
  };
}

test('the heartbeat renews what is held, not what was released, and stops', async () => {
  const r = renewals();
  const heartbeat = createLeaseHeartbeat({ renew: r.renew, everyMs: 5, logger: pino({ level: 'silent' }), what: 'test' });
  heartbeat.hold('a');
  heartbeat.hold('b');
  heartbeat.start();
  assert.deepEqual([...(await r.nextRenewal())].sort(), ['a', 'b']);
  heartbeat.release('a');
  assert.deepEqual(await r.nextRenewal(), ['b']);
  heartbeat.release('b');
  heartbeat.stop();
  const count = r.seen.length;
  // Nothing held and stopped: no renewal comes; a renewal of an empty set would also be a statement for nothing.
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(r.seen.length, count);
});

test('a failed renewal is logged and the next one still runs', async () => {
  let calls = 0;
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line).msg) });
  let second: () => void = () => {};
  const done = new Promise<void>((resolve) => (second = resolve));
  const heartbeat = createLeaseHeartbeat({
    renew: async () => {
      calls += 1;
      if (calls === 1) throw new Error('database gone');
      second();
    },
    everyMs: 5,
    logger,
    what: 'delivery',
  });
  heartbeat.hold('a');
  heartbeat.start();
  await done;
  heartbeat.stop();
  assert.deepEqual(warnings, ['renewing delivery leases failed']);
});
