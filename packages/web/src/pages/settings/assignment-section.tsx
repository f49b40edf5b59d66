// Settings → Assignment (issue #44, DESIGN Team workbench → auto-assignment, team hours): how chats that need a
// person reach members (mode, capacity per member, only available members), and the team's weekly hours in a time
// zone, each day as `09:00-18:00` ranges separated by commas (empty: closed), or always open.
import { useEffect, useState } from 'preact/hooks';
import type { AssignmentMode, AssignmentSettings, TeamHours } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { Field, ErrorLine, StatusLine } from '../../ui.tsx';
import { useAction } from '../../use-action.ts';
import { SettingsSection } from './section.tsx';

const DAYS = [
  ['mon', 'Monday'],
  ['tue', 'Tuesday'],
  ['wed', 'Wednesday'],
  ['thu', 'Thursday'],
  ['fri', 'Friday'],
  ['sat', 'Saturday'],
  ['sun', 'Sunday'],
] as const;
type Day = (typeof DAYS)[number][0];
const MODES: [AssignmentMode, string][] = [
  ['off', 'Off'],
  ['round_robin', 'Round robin'],
  ['least_busy', 'Least busy'],
];

/** A day's ranges as typed: `09:00-12:00, 13:00-18:00`. */
const dayText = (ranges: string[][]) => ranges.map(([from, to]) => `${from}-${to}`).join(', ');
/** The typed ranges, as the API takes them (what does not read as HH:MM-HH:MM is sent as is, for the API to refuse). */
const dayRanges = (text: string): string[][] =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => part.split(/\s*[-–]\s*/));

export function AssignmentSection() {
  const [mode, setMode] = useState<AssignmentMode>('off');
  const [capacity, setCapacity] = useState('10');
  const [onlyAvailable, setOnlyAvailable] = useState(true);
  const [timezone, setTimezone] = useState('UTC');
  const [alwaysOpen, setAlwaysOpen] = useState(true);
  const [days, setDays] = useState<Record<Day, string>>({ mon: '', tue: '', wed: '', thu: '', fri: '', sat: '', sun: '' });
  const [saved, setSaved] = useState<string | null>(null);
  const [hoursSaved, setHoursSaved] = useState<string | null>(null);
  /** Each form is disabled until its values are read (a choice made before would be overwritten). */
  const [loaded, setLoaded] = useState({ settings: false, hours: false });
  const settings = useAction();
  const hours = useAction();
  const showSettings = (s: AssignmentSettings) => {
    setMode(s.mode);
    setCapacity(String(s.capacity));
    setOnlyAvailable(s.onlyAvailable);
  };
  const showHours = (h: TeamHours) => {
    setTimezone(h.timezone);
    setAlwaysOpen(h.weekly === null);
    if (h.weekly) {
      const weekly = h.weekly;
      setDays(Object.fromEntries(DAYS.map(([day]) => [day, dayText(weekly[day])])) as Record<Day, string>);
    }
  };
  useEffect(() => {
    void settings.run(async () => {
      showSettings(await api<AssignmentSettings>('GET', '/account/assignment/'));
      setLoaded((was) => ({ ...was, settings: true }));
    });
    void hours.run(async () => {
      showHours(await api<TeamHours>('GET', '/account/hours/'));
      setLoaded((was) => ({ ...was, hours: true }));
    });
  }, []);
  const saveSettings = (event: Event) => {
    event.preventDefault();
    setSaved(null);
    void settings.run(async () => {
      showSettings(await api<AssignmentSettings>('PUT', '/account/assignment/', { body: { mode, capacity: Number(capacity), onlyAvailable } }));
      setSaved(t('Saved.'));
    });
  };
  const saveHours = (event: Event) => {
    event.preventDefault();
    setHoursSaved(null);
    void hours.run(async () => {
      const weekly = alwaysOpen ? null : Object.fromEntries(DAYS.map(([day]) => [day, dayRanges(days[day])]));
      showHours(await api<TeamHours>('PUT', '/account/hours/', { body: { timezone: timezone.trim(), weekly } }));
      setHoursSaved(t('Saved.'));
    });
  };
  return (
    <SettingsSection
      name="Assignment"
      hint="A chat that needs a person goes to an available member with room for it: round robin takes turns, least busy picks the member with the fewest open chats. With no one free it waits, and waiting chats are assigned oldest first."
    >
      <form aria-label="Assignment settings" onSubmit={saveSettings}>
        <fieldset class="plain" disabled={!loaded.settings}>
        <Field label={t('Assignment mode')}>
          <select aria-label="Assignment mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as AssignmentMode)}>
            {MODES.map(([value, label]) => (
              <option key={value} value={value}>
                {t(label)}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('Open chats per member')}>
          <input
            type="number"
            aria-label="Open chats per member"
            required
            min={1}
            max={100}
            step={1}
            value={capacity}
            onInput={(e) => setCapacity(e.currentTarget.value)}
          />
        </Field>
        <label class="check">
          <input type="checkbox" aria-label="Only available members" checked={onlyAvailable} onChange={(e) => setOnlyAvailable(e.currentTarget.checked)} />
          {t('Only available members')}
        </label>
        <ErrorLine error={settings.error} />
        <StatusLine text={saved} />
        <button type="submit" aria-label="Save assignment settings" disabled={settings.busy}>
          {t('Save')}
        </button>
        </fieldset>
      </form>
      <form aria-label="Team hours" onSubmit={saveHours}>
        <h3>{t('Team hours')}</h3>
        <fieldset class="plain" disabled={!loaded.hours}>
        <p class="muted small">
          {t('Outside them the handoff message says when the team is back, and chats are assigned when the hours open. Each day: 09:00-18:00, ranges separated by commas; empty is closed.')}
        </p>
        <Field label={t('Time zone')}>
          <input aria-label="Team time zone" required maxLength={64} placeholder="Europe/Berlin" value={timezone} onInput={(e) => setTimezone(e.currentTarget.value)} />
        </Field>
        <label class="check">
          <input type="checkbox" aria-label="Always open" checked={alwaysOpen} onChange={(e) => setAlwaysOpen(e.currentTarget.checked)} />
          {t('Always open')}
        </label>
        {!alwaysOpen &&
          DAYS.map(([day, name]) => (
            <Field key={day} label={t(name)}>
              <input
                aria-label={`${name} hours`}
                placeholder="09:00-18:00"
                value={days[day]}
                onInput={(e) => setDays({ ...days, [day]: e.currentTarget.value })}
              />
            </Field>
          ))}
        <ErrorLine error={hours.error} />
        <StatusLine text={hoursSaved} />
        <button type="submit" aria-label="Save team hours" disabled={hours.busy}>
          {t('Save')}
        </button>
        </fieldset>
      </form>
    </SettingsSection>
  );
}
