// Working hours of a channel: weekly intervals in an IANA time zone. Outside them the agent is silent and the
// auto-reply goes out, once per off-hours period (that is, once since working hours last ended).
import type { StoredWorkingHours } from '../db/schema.ts';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const WEEK = 7 * 24 * 60;
const WEEKDAY_INDEX = new Map<string, number>([
  ['Mon', 0],
  ['Tue', 1],
  ['Wed', 2],
  ['Thu', 3],
  ['Fri', 4],
  ['Sat', 5],
  ['Sun', 6],
]);

function clockMinutes(clock: string): number {
  const [h, m] = clock.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

/** Minutes since Monday 00:00 local time, with the seconds part of the current minute. */
function localWeekMinute(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = WEEKDAY_INDEX.get(part('weekday')) ?? 0;
  return day * 24 * 60 + Number(part('hour')) * 60 + Number(part('minute')) + at.getUTCSeconds() / 60;
}

/** Each interval as [start, end) in minutes of the week. */
function weekIntervals(hours: StoredWorkingHours): [number, number][] {
  return hours.intervals.map(({ day, from, to }) => {
    const start = DAYS.indexOf(day) * 24 * 60;
    return [start + clockMinutes(from), start + clockMinutes(to)];
  });
}

/** No working hours set means always open. */
export function isOpen(hours: StoredWorkingHours | null, at: Date): boolean {
  if (!hours) return true;
  const now = localWeekMinute(at, hours.timeZone);
  return weekIntervals(hours).some(([start, end]) => start <= now && now < end);
}

/**
 * When working hours last ended before `at` (ends that another interval continues do not count); undefined when
 * they never end (no intervals: always closed). Computed in local wall time, so a DST change can shift it by an hour.
 */
export function lastClosedAt(hours: StoredWorkingHours, at: Date): Date | undefined {
  const intervals = weekIntervals(hours);
  const starts = new Set(intervals.map(([start]) => start % WEEK));
  const now = localWeekMinute(at, hours.timeZone);
  let ago: number | undefined;
  for (const [, end] of intervals) {
    if (starts.has(end % WEEK)) continue;
    const minutes = (((now - end) % WEEK) + WEEK) % WEEK;
    if (ago === undefined || minutes < ago) ago = minutes;
  }
  return ago === undefined ? undefined : new Date(at.getTime() - ago * 60_000);
}

/**
 * When working hours next begin at or after `at` (`at` itself while open); undefined when they never do (no
 * intervals). Local wall time, like lastClosedAt. The chat widget's away note says it.
 */
export function nextOpenAt(hours: StoredWorkingHours, at: Date): Date | undefined {
  const now = localWeekMinute(at, hours.timeZone);
  let wait: number | undefined;
  for (const [start, end] of weekIntervals(hours)) {
    if (start <= now && now < end) return at;
    const minutes = (((start - now) % WEEK) + WEEK) % WEEK;
    if (wait === undefined || minutes < wait) wait = minutes;
  }
  // localWeekMinute counts whole seconds: the start is exact once the milliseconds are dropped.
  return wait === undefined ? undefined : new Date(at.getTime() - at.getUTCMilliseconds() + wait * 60_000);
}

/** Whether the auto-reply is due: none was sent since working hours last ended. */
export function autoReplyDue(hours: StoredWorkingHours, lastSentAt: Date | null, at: Date): boolean {
  if (!lastSentAt) return true;
  const closedAt = lastClosedAt(hours, at);
  return closedAt !== undefined && lastSentAt < closedAt;
}
