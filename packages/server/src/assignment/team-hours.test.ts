import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickMember } from './assigner.ts';
import { storedTeamHours, teamBack, teamOpen } from './team-hours.ts';

// Weekdays 09:00–12:00 and 13:00–18:00 in Berlin (UTC+1 in November), Saturday closed; 2026-11-23 is a Monday.
const hours = storedTeamHours({
  timezone: 'Europe/Berlin',
  weekly: {
    mon: [
      ['09:00', '12:00'],
      ['13:00', '18:00'],
    ],
    tue: [['09:00', '18:00']],
    wed: [['09:00', '18:00']],
    thu: [['09:00', '18:00']],
    fri: [['09:00', '18:00']],
    sat: [],
    sun: [],
  },
});

test('team hours: open inside a range of the team time zone; no hours or a null week always open', () => {
  assert.equal(teamOpen(hours, new Date('2026-11-23T08:00:00Z')), true); // Monday 09:00 Berlin
  assert.equal(teamOpen(hours, new Date('2026-11-23T11:30:00Z')), false); // Monday 12:30: the lunch gap
  assert.equal(teamOpen(hours, new Date('2026-11-28T10:00:00Z')), false); // Saturday
  assert.equal(teamOpen(null, new Date('2026-11-28T10:00:00Z')), true);
  assert.equal(teamOpen({ timezone: 'UTC', weekly: null }, new Date('2026-11-28T10:00:00Z')), true);
});

test('team hours: when the team is back, as the weekday (0 = Monday) and local HH:MM of the next opening', () => {
  assert.deepEqual(teamBack(hours, new Date('2026-11-28T10:00:00Z')), { weekday: 0, time: '09:00' }); // Saturday → Monday
  assert.deepEqual(teamBack(hours, new Date('2026-11-23T11:30:00Z')), { weekday: 0, time: '13:00' }); // lunch → today 13:00
  assert.deepEqual(teamBack(hours, new Date('2026-11-27T17:30:00Z')), { weekday: 0, time: '09:00' }); // Friday 18:30
  assert.equal(teamBack(hours, new Date('2026-11-23T08:00:00Z')), undefined); // open
  assert.equal(teamBack(null, new Date('2026-11-28T10:00:00Z')), undefined);
  const closed = storedTeamHours({ timezone: 'UTC', weekly: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] } });
  assert.equal(teamOpen(closed, new Date('2026-11-23T10:00:00Z')), false);
  assert.equal(teamBack(closed, new Date('2026-11-23T10:00:00Z')), undefined); // never open: no opening to name
});

test('pickMember: round robin takes the least recently served (never first), least busy the fewest open; none at capacity', () => {
  const at = (iso: string) => new Date(iso);
  const members = [
    { id: 'a', capacity: null, open: 1, lastAssignedAt: at('2026-11-23T10:00:00Z') },
    { id: 'b', capacity: null, open: 3, lastAssignedAt: null },
    { id: 'c', capacity: 2, open: 0, lastAssignedAt: at('2026-11-23T09:00:00Z') },
  ];
  assert.equal(pickMember('round_robin', members, 10)?.id, 'b');
  assert.equal(pickMember('least_busy', members, 10)?.id, 'c');
  assert.equal(pickMember('round_robin', members, 3)?.id, 'c'); // b is at the account's capacity
  assert.equal(pickMember('least_busy', [{ ...members[2]!, open: 2 }], 10), undefined); // c's own capacity
});
