// A knowledge base's `Gaps` tab (DESIGN, Replay and knowledge gaps): the customer questions the agent could not
// answer, grouped by meaning, biggest first, with the team's replies; `Create entry` (admins) opens the entry form
// prefilled with the group's question and its most common team reply without greetings, names and sign-offs
// (plain-answer.ts); a group no member replied to says so, and its entry's answer is left empty.
import { useEffect, useState } from 'preact/hooks';
import type { KnowledgeGap } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { ErrorLine, Field } from '../../ui.tsx';
import { plainAnswer } from './plain-answer.ts';

export interface EntryPrefill {
  question: string;
  answer: string;
}

const WINDOWS = [7, 30, 90];

export function GapsTab({ baseId, canManage, onCreate }: { baseId: string; canManage: boolean; onCreate: (prefill: EntryPrefill) => void }) {
  const [days, setDays] = useState(30);
  const [gaps, setGaps] = useState<KnowledgeGap[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setError(null);
    api<{ gaps: KnowledgeGap[] }>('GET', `/knowledge-bases/${baseId}/gaps`, { query: { days } }).then(
      (r) => setGaps(r.gaps),
      (e) => setError(errorText(e)),
    );
  }, [baseId, days]);
  return (
    <section class="grid" aria-label="Knowledge gaps">
      <p class="note">{t('Questions the agent could not answer (a fallback, a handoff, or "something else" to its choices), grouped by meaning.')}</p>
      <Field label={t('Period')}>
        <select aria-label="Period" value={String(days)} onChange={(e) => setDays(Number(e.currentTarget.value))}>
          {WINDOWS.map((n) => (
            <option key={n} value={String(n)}>
              {t('Last {n} days').replace('{n}', String(n))}
            </option>
          ))}
        </select>
      </Field>
      <ErrorLine error={error} />
      {gaps !== null && gaps.length === 0 && <p>{t('No unanswered questions in this period.')}</p>}
      <ul class="entries" aria-label="Gap groups">
        {(gaps ?? []).map((gap) => (
          <li key={gap.id} class="card grid" aria-label={gap.examples[0] ?? gap.id}>
            <strong>
              {gap.examples[0]} <small>× {gap.size}</small>
            </strong>
            {gap.examples.length > 1 && (
              <ul aria-label="Other phrasings">
                {gap.examples.slice(1).map((example) => (
                  <li key={example}>{example}</li>
                ))}
              </ul>
            )}
            {gap.teamAnswers.length === 0 && <p class="muted">{t('No team reply yet.')}</p>}
            {gap.teamAnswers.length > 0 && (
              <div>
                <span>{t("Team's replies")}:</span>
                <ul aria-label="Team replies">
                  {gap.teamAnswers.map((answer) => (
                    <li key={answer}>{answer}</li>
                  ))}
                </ul>
              </div>
            )}
            {canManage && (
              <div class="row">
                <button type="button" aria-label="Create entry" onClick={() => onCreate({ question: gap.examples[0] ?? '', answer: plainAnswer(gap.teamAnswers[0] ?? '') })}>
                  {t('Create entry')}
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
