import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autoReplyDue, isOpen, lastClosedAt, nextOpenAt } from './working-hours.ts';

// Weekdays 09:00–17:00 in Berlin (UTC+1 in November); 2026-11-23 is a Monday.
const hours = {
  timeZone: 'Europe/Berlin',
  intervals: (['mon', 'tue', 'wed', 'thu', 'fri'] as const).map((day) => ({ day, from: '09:00', to: '17:00' })),
};

test('open inside an interval in the channel time zone, closed outside; no hours = always open', () => {
  assert.equal(isOpen(hours, new Date('2026-11-23T08:00:00Z')), true); // 09:00 Berlin
  assert.equal(isOpen(hours, new Date('2026-11-23T07:59:00Z')), false); // 08:59
  assert.equal(isOpen(hours, new Date('2026-11-23T16:00:00Z')), false); // 17:00: the end is excluded
  assert.equal(isOpen(hours, new Date('2026-11-22T12:00:00Z')), false); // Sunday
  assert.equal(isOpen(null, new Date('2026-11-22T12:00:00Z')), true);
});

test('lastClosedAt: when the hours last ended; an end that another interval continues does not count', () => {
  assert.deepEqual(lastClosedAt(hours, new Date('2026-11-22T12:00:00Z')), new Date('2026-11-20T16:00:00Z')); // Friday 17:00
  assert.deepEqual(lastClosedAt(hours, new Date('2026-11-23T10:00:00Z')), new Date('2026-11-20T16:00:00Z'));
  const overnight = {
    timeZone: 'UTC',
    intervals: [
      { day: 'mon' as const, from: '20:00', to: '24:00' },
      { day: 'tue' as const, from: '00:00', to: '06:00' },
    ],
  };
  assert.deepEqual(lastClosedAt(overnight, new Date('2026-11-24T07:00:00Z')), new Date('2026-11-24T06:00:00Z'));
  assert.equal(lastClosedAt({ timeZone: 'UTC', intervals: [] }, new Date()), undefined);
});

test('the auto-reply is due once per off-hours period', () => {
  const saturday = new Date('2026-11-21T10:00:00Z');
  const sunday = new Date('2026-11-22T10:00:00Z');
  const nextSaturday = new Date('2026-11-28T10:00:00Z');
  assert.equal(autoReplyDue(hours, null, saturday), true);
  assert.equal(autoReplyDue(hours, saturday, sunday), false);
  assert.equal(autoReplyDue(hours, saturday, nextSaturday), true);
  // Never open: once, ever.
  assert.equal(autoReplyDue({ timeZone: 'UTC', intervals: [] }, saturday, nextSaturday), false);
});

test('nextOpenAt: when the hours next begin; now while open; never without intervals', () => {
  assert.deepEqual(nextOpenAt(hours, new Date('2026-11-21T10:00:00.250Z')), new Date('2026-11-23T08:00:00Z')); // Saturday → Monday 09:00
  assert.deepEqual(nextOpenAt(hours, new Date('2026-11-23T07:59:30Z')), new Date('2026-11-23T08:00:00Z'));
  assert.deepEqual(nextOpenAt(hours, new Date('2026-11-23T16:00:00Z')), new Date('2026-11-24T08:00:00Z')); // Monday 17:00 → Tuesday
  assert.deepEqual(nextOpenAt(hours, new Date('2026-11-27T17:00:00Z')), new Date('2026-11-30T08:00:00Z')); // Friday evening → Monday
  const open = new Date('2026-11-23T10:00:00Z');
  assert.equal(nextOpenAt(hours, open), open);
  assert.equal(nextOpenAt({ timeZone: 'UTC', intervals: [] }, open), undefined);
});
