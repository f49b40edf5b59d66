import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { createPresence } from './presence.ts';

/** A store that records the calls of presence. */
function recordingStore() {
  const calls: string[] = [];
  return {
    calls,
    store: {
      markPresent: async (_process: string, members: readonly { memberId: string }[]) => void calls.push(...members.map((m) => `present ${m.memberId}`)),
      markAbsent: async (_process: string, memberId?: string) => void calls.push(`absent ${memberId ?? '*'}`),
      awayIfOffline: async (memberId: string) => void calls.push(`away ${memberId}`),
    },
  };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a member whose last stream closed is made away (if they chose so) after the wait; a stream opened meanwhile keeps them', async () => {
  const { calls, store } = recordingStore();
  const presence = createPresence({ store, logger: pino({ level: 'silent' }), awayAfterCloseMs: 30 });
  const closeA = presence.connected('acc', 'm1');
  const closeB = presence.connected('acc', 'm1');
  closeA();
  await wait(60);
  assert.deepEqual(calls, ['present m1']); // one of two tabs closed: still there
  closeB();
  await wait(60);
  assert.deepEqual(calls, ['present m1', 'absent m1', 'away m1']);

  // A reload: the stream closes and opens again within the wait.
  calls.length = 0;
  const closeC = presence.connected('acc', 'm2');
  closeC();
  const closeD = presence.connected('acc', 'm2');
  await wait(60);
  assert.deepEqual(calls, ['present m2', 'absent m2', 'present m2']);
  closeD();
  await presence.stop();
  await wait(60);
  assert.ok(!calls.includes('away m2'), 'a stopping process makes no one away');
});
