// Team hours (issue #44): the account's weekly hours in an IANA time zone, `{ timezone, weekly: { mon: [["09:00",
// "18:00"]], … } }` (null weekly: always open). Outside them a handoff's message says when the team is back, and
// chats are assigned when they open (assigner.ts). The arithmetic is the channels' working hours'.
import type { TeamHours } from '@parley/contracts';
import type { StoredTeamHours, StoredWorkingHours } from '../db/schema.ts';
import { isOpen, nextOpenAt } from '../channels/working-hours.ts';
import { Errors } from '../errors.ts';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const WEEKDAY_INDEX = new Map<string, number>(['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].map((day, index) => [day, index]));

function minutes(clock: string): number {
  const [h, m] = clock.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

/** The time zone must be one the runtime knows; every range must end after it starts (400 naming which). */
export function validateTeamHours(hours: TeamHours): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: hours.timezone });
  } catch {
    throw Errors.invalidTeamTimeZone(hours.timezone);
  }
  if (!hours.weekly) return;
  for (const day of DAYS) {
    hours.weekly[day].forEach(([from, to], index) => {
      if (from === undefined || to === undefined || minutes(from) >= minutes(to)) throw Errors.invalidTeamHoursRange(day, index);
    });
  }
}

/** The hours as stored (the days in week order, each range a pair). */
export function storedTeamHours(hours: TeamHours): StoredTeamHours {
  const { weekly } = hours;
  if (!weekly) return { timezone: hours.timezone, weekly: null };
  const days = Object.fromEntries(DAYS.map((day) => [day, weekly[day].map(([from, to]) => [from ?? '', to ?? ''] as [string, string])]));
  return { timezone: hours.timezone, weekly: days as NonNullable<StoredTeamHours['weekly']> };
}

/** As the channels' working hours; undefined: always open. */
function asWorkingHours(hours: StoredTeamHours | null): StoredWorkingHours | undefined {
  const weekly = hours?.weekly;
  if (!hours || !weekly) return undefined;
  return { timeZone: hours.timezone, intervals: DAYS.flatMap((day) => weekly[day].map(([from, to]) => ({ day, from, to }))) };
}

/** Whether the team is in (no hours: always). */
export function teamOpen(hours: StoredTeamHours | null, at: Date): boolean {
  const working = asWorkingHours(hours);
  return working === undefined || isOpen(working, at);
}

/**
 * When the team is back, outside its hours: the weekday (0 = Monday) and HH:MM of the next opening in the team's
 * time zone; undefined while open, without hours, or with no hours in the week.
 */
export function teamBack(hours: StoredTeamHours | null, at: Date): { weekday: number; time: string } | undefined {
  const working = asWorkingHours(hours);
  if (working === undefined || isOpen(working, at)) return undefined;
  const opening = nextOpenAt(working, at);
  if (!opening) return undefined;
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: working.timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(opening);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { weekday: WEEKDAY_INDEX.get(part('weekday')) ?? 0, time: `${part('hour')}:${part('minute')}` };
}
