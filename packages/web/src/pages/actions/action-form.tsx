// One action's form: every field of the contract, saved with one `Save` (a new action: `Create action`), the server's
// refusals shown at the fields they name; delete after a confirmation. An agent reads it all and changes nothing.
import { useState } from 'preact/hooks';
import type { Action } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { useCanManage } from '../../role.tsx';
import { Field, StatusLine } from '../../ui.tsx';
import { bodyOf, draftOf, type ActionDraft } from './draft.ts';
import { FieldError, fieldErrorsOf, invalidProps, type FieldErrors } from './field-errors.tsx';
import { HeadersEditor } from './headers-editor.tsx';
import { ParametersEditor } from './parameters-editor.tsx';

/** Action names as the contract takes them (contracts: ACTION_NAME_PATTERN). */
const ACTION_NAME = '[a-z][a-z0-9_]{0,39}';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

type DraftProps = { draft: ActionDraft; set: (changes: Partial<ActionDraft>) => void; errors: FieldErrors };

/** What the action is and where it calls: name, description, kind, method, URL, timeout. */
function CallFields({ draft, set, errors }: DraftProps) {
  return (
    <>
      <Field label={t('Name')}>
        <input aria-label="Name" required pattern={ACTION_NAME} maxLength={40} placeholder="order_status" value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} {...invalidProps(errors, 'name')} />
      </Field>
      <p class="muted small">{t('Lower-case letters, digits and _; the model calls the action by it.')}</p>
      <FieldError errors={errors} field="name" />
      <Field label={t('Description')}>
        <textarea aria-label="Description" rows={2} maxLength={1000} value={draft.description} onInput={(e) => set({ description: e.currentTarget.value })} {...invalidProps(errors, 'description')} />
      </Field>
      <p class="muted small">{t('What it does and when to use it: the model reads it, and a write asks “Shall I <description> for <parameters>?”.')}</p>
      <FieldError errors={errors} field="description" />
      <div class="row wrap">
        <Field label={t('Kind')}>
          <select aria-label="Kind" value={draft.kind} onChange={(e) => set({ kind: e.currentTarget.value as ActionDraft['kind'] })}>
            <option value="read">{t('Read: looks something up')}</option>
            <option value="write">{t('Write: changes something (the customer confirms first)')}</option>
          </select>
        </Field>
        <Field label={t('Method')}>
          <select aria-label="Method" value={draft.method} onChange={(e) => set({ method: e.currentTarget.value as ActionDraft['method'] })}>
            {METHODS.map((method) => (
              <option key={method} value={method}>
                {method}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('Timeout (ms)')}>
          <input aria-label="Timeout" type="number" min={1000} max={10000} step={100} required value={draft.timeoutMs} onInput={(e) => set({ timeoutMs: e.currentTarget.value })} {...invalidProps(errors, 'timeoutMs')} />
        </Field>
      </div>
      <FieldError errors={errors} field="timeoutMs" />
      <Field label={t('URL')}>
        <input aria-label="URL" required maxLength={2000} placeholder="https://shop.example/api/orders/{{order_number}}" value={draft.url} onInput={(e) => set({ url: e.currentTarget.value })} {...invalidProps(errors, 'url')} />
      </Field>
      <p class="muted small">{t('{{name}} of a parameter may stand in the path and the query; its value is URL-encoded.')}</p>
      <FieldError errors={errors} field="url" />
    </>
  );
}

/** What goes out besides the URL, and what the customer gets back: the JSON body, the answer, the error answer. */
function ReplyFields({ draft, set, errors }: DraftProps) {
  return (
    <>
      <Field label={t('Body (JSON)')}>
        <textarea aria-label="Body" rows={3} placeholder='{ "order": "{{order_number}}" }' value={draft.body} onInput={(e) => set({ body: e.currentTarget.value })} {...invalidProps(errors, 'body')} />
      </Field>
      <p class="muted small">{t('Empty: no body. A string that is exactly {{name}} takes the typed value; values never add a field.')}</p>
      <FieldError errors={errors} field="body" />
      <Field label={t('Answer')}>
        <textarea aria-label="Answer" rows={2} maxLength={10000} placeholder="Order {{id}} is {{status}}, arriving {{eta}}." value={draft.answer} onInput={(e) => set({ answer: e.currentTarget.value })} {...invalidProps(errors, 'answer')} />
      </Field>
      <p class="muted small">{t('The reply with no model: a template over the JSON response ({{path.to.field}}, {{#list}}…{{/list}}).')}</p>
      <FieldError errors={errors} field="answer" />
      <Field label={t('Error answer')}>
        <textarea aria-label="Error answer" rows={2} maxLength={10000} value={draft.errorAnswer} onInput={(e) => set({ errorAnswer: e.currentTarget.value })} {...invalidProps(errors, 'errorAnswer')} />
      </Field>
      <p class="muted small">{t('Sent when the call fails. Empty: the chat is handed to the team.')}</p>
      <FieldError errors={errors} field="errorAnswer" />
    </>
  );
}

export function ActionForm({ action, reviewing, onSaved, onDelete }: { action: Action | null; reviewing: boolean; onSaved: (action: Action) => void; onDelete?: () => Promise<void> }) {
  const canManage = useCanManage();
  const [draft, setDraft] = useState<ActionDraft>(() => draftOf(action, reviewing));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const set = (changes: Partial<ActionDraft>) => setDraft({ ...draft, ...changes });

  const save = async (event: Event) => {
    event.preventDefault();
    setStatus(null);
    const made = bodyOf(draft);
    if ('bodyError' in made) return setErrors({ body: [`${t('Body: not JSON')} (${made.bodyError})`] });
    setBusy(true);
    try {
      const saved = action ? await api<Action>('PUT', `/actions/${action.id}`, { body: made.body }) : await api<Action>('POST', '/actions/', { body: made.body });
      setErrors({});
      setDraft(draftOf(saved));
      setStatus(t('Saved'));
      onSaved(saved);
    } catch (failure) {
      setErrors(fieldErrorsOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card grid" aria-label={action ? 'Action settings' : 'New action'} onSubmit={save} aria-busy={busy}>
      <fieldset class="plain" disabled={!canManage || busy}>
        <CallFields draft={draft} set={set} errors={errors} />
        <HeadersEditor headers={draft.headers} set={(headers) => set({ headers })} errors={errors} />
        <ParametersEditor parameters={draft.parameters} set={(parameters) => set({ parameters })} errors={errors} />
        <ReplyFields draft={draft} set={set} errors={errors} />
        <label class="check">
          <input type="checkbox" aria-label="Enabled" checked={draft.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} />
          <span>{t('Enabled')}</span>
        </label>
        {reviewing && <p class="notice small">{t('Imported actions stay disabled until saved: review the fields, then Save enables it (uncheck Enabled to keep it off).')}</p>}
      </fieldset>
      {canManage && (
        <div class="row save-bar">
          <FieldError errors={errors} field="form" />
          <button type="submit" aria-label={action ? 'Save' : 'Create action'} disabled={busy}>
            {action ? t('Save') : t('Create action')}
          </button>
          <StatusLine text={status} />
          {onDelete && !confirmDelete && (
            <button type="button" aria-label="Delete action" onClick={() => setConfirmDelete(true)}>
              {t('Delete action')}
            </button>
          )}
          {onDelete && confirmDelete && (
            <span class="row danger">
              <span>{t('Delete this action? Channels stop offering it; entries answer with their own text again.')}</span>
              <button type="button" aria-label="Delete" onClick={() => void onDelete().catch((failure: unknown) => setErrors(fieldErrorsOf(failure)))}>
                {t('Delete')}
              </button>
              <button type="button" aria-label="Cancel" onClick={() => setConfirmDelete(false)}>
                {t('Cancel')}
              </button>
            </span>
          )}
        </div>
      )}
    </form>
  );
}
