// Working hours for tests that need a channel closed now, whenever now is.

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

/** Hours of one day only, the day after tomorrow 09:00–17:00 UTC, and when they begin. */
export function hoursTwoDaysAhead() {
  const now = new Date();
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 2, 9));
  const weekday = WEEKDAYS[(day.getUTCDay() + 6) % 7];
  return { workingHours: { timeZone: 'UTC', intervals: [{ day: weekday, from: '09:00', to: '17:00' }] }, backAt: day.toISOString() };
}
