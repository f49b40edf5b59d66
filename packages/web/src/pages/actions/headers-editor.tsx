// The action's headers: a row each (name, value, `Secret`). A secret is written and never shown again: a stored one
// reads "••••" and is kept unless a new value is typed.
import { t } from '../../i18n.ts';
import { useCanManage } from '../../role.tsx';
import type { HeaderDraft } from './draft.ts';
import { SECRET_MASK } from './draft.ts';
import { FieldError, invalidProps, type FieldErrors } from './field-errors.tsx';

export function HeadersEditor({ headers, set, errors }: { headers: HeaderDraft[]; set: (headers: HeaderDraft[]) => void; errors: FieldErrors }) {
  const canManage = useCanManage();
  const change = (index: number, changes: Partial<HeaderDraft>) => set(headers.map((row, i) => (i === index ? { ...row, ...changes } : row)));
  return (
    <fieldset class="grid" aria-label="Headers" {...invalidProps(errors, 'headers')}>
      <legend>{t('Headers')}</legend>
      {headers.length === 0 && <p class="muted small">{t('No headers. An API key goes here, as a secret.')}</p>}
      {headers.map((row, i) => {
        const n = i + 1;
        return (
          <div key={i} class="row wrap header-row">
            <input aria-label={`Header ${n} name`} placeholder={t('Header name')} maxLength={100} value={row.name} onInput={(e) => change(i, { name: e.currentTarget.value })} />
            <input
              aria-label={`Header ${n} value`}
              type={row.secret ? 'password' : 'text'}
              autoComplete="off"
              maxLength={2000}
              placeholder={row.stored ? `${SECRET_MASK} ${t('stored (leave empty to keep)')}` : t('Value')}
              value={row.value}
              onInput={(e) => change(i, { value: e.currentTarget.value })}
            />
            <label class="check">
              {/* Unchecked, a stored secret is no longer kept: the value typed becomes plain text. */}
              <input type="checkbox" aria-label={`Header ${n} secret`} checked={row.secret} onChange={(e) => change(i, { secret: e.currentTarget.checked, stored: row.stored && e.currentTarget.checked })} />
              <span>{t('Secret')}</span>
            </label>
            {canManage && (
              <button type="button" class="small" aria-label={`Remove header ${n}`} onClick={() => set(headers.filter((_, j) => j !== i))}>
                {t('Remove')}
              </button>
            )}
          </div>
        );
      })}
      <FieldError errors={errors} field="headers" />
      {canManage && (
        <div>
          <button type="button" class="small" aria-label="Add header" onClick={() => set([...headers, { name: '', value: '', secret: false, stored: false }])}>
            {t('Add header')}
          </button>
        </div>
      )}
    </fieldset>
  );
}
