// The phrasings customers chose for an entry (clarifying choices), under the entry: each with how often it was
// picked, `Keep` (it becomes one of the entry's synonyms) and `Discard`.
import { useState } from 'preact/hooks';
import type { KnowledgeEntry } from '@parley/contracts';
import { api, errorText } from '../api.ts';
import { t } from '../i18n.ts';
import { ErrorLine } from '../ui.tsx';

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
          <li key={learned.id} class="row">
            <span>
              {learned.text} <span class="muted">×{learned.picks}</span>
            </span>
            <button type="button" class="small" aria-label="Keep" disabled={busy} onClick={() => void act(learned.id, true)}>
              {t('Keep')}
            </button>
            <button type="button" class="small" aria-label="Discard" disabled={busy} onClick={() => void act(learned.id, false)}>
              {t('Discard')}
            </button>
          </li>
        ))}
      </ul>
      <ErrorLine error={error} />
    </div>
  );
}
