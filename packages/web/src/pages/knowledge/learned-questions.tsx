// The phrasings customers chose for an entry (clarifying choices), under the entry: each with how many different
// customers chose it, a warning naming the other entries it is as close to (kept, it is still asked as a choice while
// ambiguous: docs/decisions.md, "Learned phrasings that cannot mislead"), `Keep` (it becomes one of the entry's
// synonyms) and `Discard`.
import { useState } from 'preact/hooks';
import type { KnowledgeEntry } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { plural } from '../../plural.ts';
import { ErrorLine } from '../../ui.tsx';

type Learned = KnowledgeEntry['learnedQuestions'][number];

/** "chosen by 3 customers", and how many times when one customer chose it more than once (no chat left: the times). */
function chosenBy(learned: Learned): string {
  if (learned.customers === 0) return t('chosen {times}').replace('{times}', plural(learned.picks, 'time', 'times'));
  const by = t('chosen by {customers}').replace('{customers}', plural(learned.customers, 'customer', 'customers'));
  return learned.picks > learned.customers ? `${by} (${plural(learned.picks, 'time', 'times')})` : by;
}

export function LearnedQuestions({ baseId, entry, onChanged }: { baseId: string; entry: KnowledgeEntry; onChanged: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (entry.learnedQuestions.length === 0) return null;

  async function act(learnedId: string, keep: boolean) {
    setBusy(true);
    setError(null);
    try {
      const path = `/knowledge-bases/${baseId}/entries/${entry.id}/learned/${learnedId}`;
      await api(keep ? 'POST' : 'DELETE', keep ? `${path}/keep` : path);
      onChanged();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="learned">
      <p class="muted">{t('Customers chose this answer after asking:')}</p>
      <ul>
        {entry.learnedQuestions.map((learned) => (
          <li key={learned.id}>
            <div class="row wrap">
              <span>{learned.text}</span>
              <span class="muted">{chosenBy(learned)}</span>
              <button
                type="button"
                class="small"
                aria-label="Keep"
                aria-describedby={learned.competing.length > 0 ? `learned-${learned.id}-close` : undefined}
                disabled={busy}
                onClick={() => void act(learned.id, true)}
              >
                {t('Keep')}
              </button>
              <button type="button" class="small" aria-label="Discard" disabled={busy} onClick={() => void act(learned.id, false)}>
                {t('Discard')}
              </button>
            </div>
            {learned.competing.length > 0 && (
              <p class="notice small" id={`learned-${learned.id}-close`}>
                {t('Also close to:')} {learned.competing.map((other) => `“${other.question}”`).join(', ')};{' '}
                {t('kept, it will still be asked as a choice while it stays ambiguous.')}
              </p>
            )}
          </li>
        ))}
      </ul>
      <ErrorLine error={error} />
    </div>
  );
}
