// The channel form's `Actions` section: which of the account's actions this channel's agent may use (`actionIds`),
// saved with the page's one `Save`.
import type { Action } from '@parley/contracts';
import { t } from '../../i18n.ts';
import { Link } from '../../ui.tsx';
import type { DraftFieldsProps } from './draft.ts';

export function ActionChoices({ actions, draft, set }: DraftFieldsProps & { actions: Action[] }) {
  const toggle = (id: string, on: boolean) => set({ actionIds: on ? [...draft.actionIds, id] : draft.actionIds.filter((chosen) => chosen !== id) });
  if (actions.length === 0) {
    return (
      <p class="muted">
        {t('The account has no actions yet:')} <Link href="/actions">{t('create them on the Actions page')}</Link>.
      </p>
    );
  }
  return (
    <>
      <p class="muted small">{t('With no model, a matching knowledge entry may answer with one of these; with a model, each is a tool the agent may call. A disabled action is never used.')}</p>
      {actions.map((action) => (
        <label key={action.id} class="check">
          <input type="checkbox" aria-label={action.name} checked={draft.actionIds.includes(action.id)} onChange={(e) => toggle(action.id, e.currentTarget.checked)} />
          <span>
            <strong>{action.name}</strong> <span class="tag">{action.kind === 'read' ? t('read') : t('write')}</span>
            {!action.enabled && <span class="tag">{t('disabled')}</span>}
            {action.description && <span class="muted"> — {action.description}</span>}
          </span>
        </label>
      ))}
    </>
  );
}
