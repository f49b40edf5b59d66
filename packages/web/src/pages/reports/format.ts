// Figures as a team lead reads them: "—" where there is no data (never NaN), percentages, durations in readable units.
import { currentLang } from '../../i18n.ts';

export const NONE = '—';

/** A fraction 0–1 as a percentage: 0.667 → "66.7%". */
export function percent(rate: number | null): string {
  if (rate === null || !Number.isFinite(rate)) return NONE;
  return `${Math.round(rate * 1000) / 10}%`;
}

/** An average rating: 4.25 → "4.3". */
export function average(value: number | null): string {
  return value === null || !Number.isFinite(value) ? NONE : value.toFixed(1);
}

/** Second, minute, hour and day, short, in the page's language. */
const UNITS = { en: ['s', 'min', 'h', 'd'], ru: ['с', 'мин', 'ч', 'дн'] } as const;

function rounded(value: number): string {
  return String(value < 10 ? Math.round(value * 10) / 10 : Math.round(value));
}

/** Seconds in the unit that reads best: "42 s", "3 min", "2.5 h", "3 d". */
export function duration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return NONE;
  const [s, min, h, d] = UNITS[currentLang()];
  if (seconds < 60) return `${Math.round(seconds)} ${s}`;
  if (seconds < 3_600) return `${rounded(seconds / 60)} ${min}`;
  if (seconds < 172_800) return `${rounded(seconds / 3_600)} ${h}`;
  return `${rounded(seconds / 86_400)} ${d}`;
}
