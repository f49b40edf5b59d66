// The channel form's Hours and handoff section: working hours, the auto-reply, and when the team takes over.
import type { Weekday } from '@parley/contracts';
import { t } from '../../i18n.ts';
import { Field } from '../../ui.tsx';
import type { DraftFieldsProps } from './draft.ts';

const DAYS: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

export /** When the agent works: a time zone and the intervals of each day; outside them the auto-reply answers. */
function WorkingHoursFields({ draft, set }: DraftFieldsProps) {
  return (
    <fieldset>
      <legend>
        <label class="check">
          <input type="checkbox" aria-label="Working hours" checked={draft.hoursOn} onChange={(e) => set({ hoursOn: e.currentTarget.checked })} />
          <span>{t('Working hours')}</span>
        </label>
      </legend>
      {draft.hoursOn && (
        <>
          <Field label={t('Time zone')}>
            <input aria-label="Time zone" value={draft.timeZone} onInput={(e) => set({ timeZone: e.currentTarget.value })} />
          </Field>
          {draft.intervals.map((interval, index) => (
            <div class="row" key={index}>
              <select
                aria-label={`Day ${index + 1}`}
                value={interval.day}
                onChange={(e) => set({ intervals: draft.intervals.map((it, i) => (i === index ? { ...it, day: e.currentTarget.value as Weekday } : it)) })}
              >
                {DAYS.map((day) => (
                  <option key={day} value={day}>
                    {day}
                  </option>
                ))}
              </select>
              <input
                aria-label={`From ${index + 1}`}
                pattern="[0-2][0-9]:[0-5][0-9]"
                value={interval.from}
                onInput={(e) => set({ intervals: draft.intervals.map((it, i) => (i === index ? { ...it, from: e.currentTarget.value } : it)) })}
              />
              <input
                aria-label={`To ${index + 1}`}
                pattern="[0-2][0-9]:[0-5][0-9]"
                value={interval.to}
                onInput={(e) => set({ intervals: draft.intervals.map((it, i) => (i === index ? { ...it, to: e.currentTarget.value } : it)) })}
              />
              <button type="button" onClick={() => set({ intervals: draft.intervals.filter((_, i) => i !== index) })}>
                {t('Remove')}
              </button>
            </div>
          ))}
          <button type="button" onClick={() => set({ intervals: [...draft.intervals, { day: 'mon', from: '09:00', to: '18:00' }] })}>
            {t('Add interval')}
          </button>
        </>
      )}
    </fieldset>
  );
}

/** What the agent says outside hours and when it hands a chat to the team. */
export function HandoffFields({ draft, set }: DraftFieldsProps) {
  return (
    <>
      <Field label={t('Auto-reply')}>
        <textarea aria-label="Auto-reply" rows={2} maxLength={2000} value={draft.autoReply} onInput={(e) => set({ autoReply: e.currentTarget.value })} />
      </Field>
      <Field label={t('Handoff message')}>
        <textarea
          aria-label="Handoff message"
          rows={2}
          maxLength={2000}
          placeholder={t("Empty: a default sentence in the agent's language")}
          value={draft.handoffMessage}
          onInput={(e) => set({ handoffMessage: e.currentTarget.value })}
        />
      </Field>
      <Field label={t('Hand over after this many fallbacks in a row (0: never)')}>
        <input
          aria-label="Handoff after fallbacks"
          type="number"
          min={0}
          max={10}
          step={1}
          value={draft.handoffAfterFallbacks}
          onInput={(e) => set({ handoffAfterFallbacks: Number(e.currentTarget.value) })}
        />
      </Field>
    </>
  );
}
