// The form of an entry: a new one (empty, or prefilled from a knowledge gap) or an existing one edited in place, and
// whether it answers with an action (no-model path; the entry's answer stays the fallback).
import { useState } from 'preact/hooks';
import type { Action, KnowledgeEntry } from '@parley/contracts';
import { errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { ErrorLine, Field } from '../../ui.tsx';
import type { EntryPrefill } from './gaps.tsx';

/** What an entry's form saves. */
export interface EntryBody {
  question: string;
  answer: string;
  synonyms: string[];
  actionId: string | null;
}

/** `Answer with an action`: the account's actions to choose from, and what choosing one means. */
function ActionField({ actions, actionId, setActionId }: { actions: Action[]; actionId: string; setActionId: (id: string) => void }) {
  // An entry may name an action the list no longer has loaded; it stays a choice until changed.
  const known = actionId === '' || actions.some((action) => action.id === actionId);
  return (
    <>
      <Field label={t('Answer with an action')}>
        <select aria-label="Answer with an action" value={actionId} onChange={(e) => setActionId(e.currentTarget.value)}>
          <option value="">{t('No: send the answer above')}</option>
          {!known && <option value={actionId}>{actionId}</option>}
          {actions.map((action) => (
            <option key={action.id} value={action.id}>
              {action.name}
              {action.enabled ? '' : ` (${t('disabled')})`}
            </option>
          ))}
        </select>
      </Field>
      <p class="muted small">
        {t("With no model, when this entry matches, the agent runs the action (asking the customer for what it needs) and sends the action's answer. The answer above stays as the fallback: sent when the channel does not offer the action, and what the team reads here.")}
      </p>
    </>
  );
}

export function EntryForm({
  entry,
  initial,
  actions = [],
  onSave,
  onCancel,
}: {
  entry?: KnowledgeEntry;
  initial?: EntryPrefill;
  /** The account's actions (`Answer with an action`). */
  actions?: Action[];
  onSave: (body: EntryBody) => Promise<void>;
  onCancel?: () => void;
}) {
  const [question, setQuestion] = useState(entry?.question ?? initial?.question ?? '');
  const [synonyms, setSynonyms] = useState((entry?.synonyms ?? []).join('\n'));
  const [answer, setAnswer] = useState(entry?.answer ?? initial?.answer ?? '');
  const [actionId, setActionId] = useState(entry?.actionId ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      await onSave({ question, answer, synonyms: synonyms.split('\n').map((s) => s.trim()).filter(Boolean), actionId: actionId || null });
      if (!entry) {
        setQuestion('');
        setSynonyms('');
        setAnswer('');
        setActionId('');
      }
      setError(null);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card grid" aria-label={entry ? 'Edit entry' : 'Add entry'} onSubmit={submit} aria-busy={busy}>
      <fieldset class="plain" disabled={busy}>
        <Field label={t('Question')}>
          <input aria-label="Question" required maxLength={1000} value={question} onInput={(e) => setQuestion(e.currentTarget.value)} />
        </Field>
        <Field label={t('Synonyms (one per line)')}>
          <textarea aria-label="Synonyms" rows={2} value={synonyms} onInput={(e) => setSynonyms(e.currentTarget.value)} />
        </Field>
        <Field label={t('Answer')}>
          <textarea aria-label="Answer" required rows={3} maxLength={10000} value={answer} onInput={(e) => setAnswer(e.currentTarget.value)} />
        </Field>
        {(actions.length > 0 || actionId !== '') && <ActionField actions={actions} actionId={actionId} setActionId={setActionId} />}
        <ErrorLine error={error} />
        <div class="row">
          <button type="submit" aria-label={entry ? 'Save' : 'Add entry'}>
            {entry ? t('Save') : t('Add entry')}
          </button>
          {onCancel && (
            <button type="button" aria-label="Cancel" onClick={onCancel}>
              {t('Cancel')}
            </button>
          )}
        </div>
      </fieldset>
    </form>
  );
}
