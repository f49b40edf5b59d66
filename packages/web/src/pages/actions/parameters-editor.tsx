// The action's parameters, a group each: name (its `{{name}}` in the URL and body), description, type (string, number,
// or enum with its values), pattern, required, the question asking for it (no model) and where its value comes from.
import { t } from '../../i18n.ts';
import { useCanManage } from '../../role.tsx';
import { Field } from '../../ui.tsx';
import { EMPTY_PARAMETER, type ParameterDraft } from './draft.ts';
import { FieldError, invalidProps, type FieldErrors } from './field-errors.tsx';

/** Parameter names as placeholders spell them (contracts: ACTION_PARAMETER_NAME_PATTERN). */
const PARAMETER_NAME = '[A-Za-z_][A-Za-z0-9_]{0,39}';

function ParameterFields({ parameter, n, change, errors }: { parameter: ParameterDraft; n: number; change: (changes: Partial<ParameterDraft>) => void; errors: FieldErrors }) {
  const field = `parameters.${n - 1}`;
  return (
    <>
      <div class="row wrap">
        <Field label={t('Name')}>
          <input aria-label={`Parameter ${n} name`} required pattern={PARAMETER_NAME} value={parameter.name} onInput={(e) => change({ name: e.currentTarget.value })} />
        </Field>
        <Field label={t('Type')}>
          <select aria-label={`Parameter ${n} type`} value={parameter.type} onChange={(e) => change({ type: e.currentTarget.value as ParameterDraft['type'] })}>
            <option value="string">{t('Text')}</option>
            <option value="number">{t('Number')}</option>
            <option value="enum">{t('One of a list')}</option>
          </select>
        </Field>
        <Field label={t('Value from')}>
          <select aria-label={`Parameter ${n} source`} value={parameter.source} onChange={(e) => change({ source: e.currentTarget.value as ParameterDraft['source'] })}>
            <option value="customer">{t('The customer')}</option>
            <option value="verified">{t("The customer's verified identity")}</option>
          </select>
        </Field>
        <label class="check">
          <input type="checkbox" aria-label={`Parameter ${n} required`} checked={parameter.required} onChange={(e) => change({ required: e.currentTarget.checked })} />
          <span>{t('Required')}</span>
        </label>
      </div>
      <Field label={t('Description')}>
        <input aria-label={`Parameter ${n} description`} maxLength={500} value={parameter.description} onInput={(e) => change({ description: e.currentTarget.value })} />
      </Field>
      {parameter.type === 'enum' && (
        <Field label={t('Values (one per line)')}>
          <textarea aria-label={`Parameter ${n} values`} rows={3} required value={parameter.values} onInput={(e) => change({ values: e.currentTarget.value })} />
        </Field>
      )}
      <Field label={t('Pattern (a regular expression the whole value matches)')}>
        <input aria-label={`Parameter ${n} pattern`} maxLength={500} placeholder="\d{5}" value={parameter.pattern} onInput={(e) => change({ pattern: e.currentTarget.value })} />
      </Field>
      {parameter.source === 'customer' && (
        <Field label={t('Question asking for it (no model)')}>
          <input aria-label={`Parameter ${n} prompt`} maxLength={500} value={parameter.prompt} onInput={(e) => change({ prompt: e.currentTarget.value })} />
        </Field>
      )}
      {parameter.source === 'verified' && <p class="muted small">{t('Taken only from the verified identity of the chat (a widget visitor verified with identifierHash, a messenger user id); never from what the customer types. A chat without one does not run the action.')}</p>}
      <FieldError errors={errors} field={field} />
    </>
  );
}

export function ParametersEditor({ parameters, set, errors }: { parameters: ParameterDraft[]; set: (parameters: ParameterDraft[]) => void; errors: FieldErrors }) {
  const canManage = useCanManage();
  const change = (index: number, changes: Partial<ParameterDraft>) => set(parameters.map((row, i) => (i === index ? { ...row, ...changes } : row)));
  return (
    <fieldset class="grid" aria-label="Parameters" {...invalidProps(errors, 'parameters')}>
      <legend>{t('Parameters')}</legend>
      {parameters.length === 0 && <p class="muted small">{t('No parameters. Each {{name}} in the URL or the body is one.')}</p>}
      {parameters.map((parameter, i) => (
        <fieldset key={i} class="grid parameter" aria-label={`Parameter ${i + 1}`} {...invalidProps(errors, `parameters.${i}`)}>
          <legend>
            {t('Parameter')} {i + 1}
          </legend>
          <ParameterFields parameter={parameter} n={i + 1} change={(changes) => change(i, changes)} errors={errors} />
          {canManage && (
            <div>
              <button type="button" class="small" aria-label={`Remove parameter ${i + 1}`} onClick={() => set(parameters.filter((_, j) => j !== i))}>
                {t('Remove')}
              </button>
            </div>
          )}
        </fieldset>
      ))}
      <FieldError errors={errors} field="parameters" />
      {canManage && (
        <div>
          <button type="button" class="small" aria-label="Add parameter" onClick={() => set([...parameters, { ...EMPTY_PARAMETER }])}>
            {t('Add parameter')}
          </button>
        </div>
      )}
    </fieldset>
  );
}
