// The `Actions` page (`/actions`, `/actions/new`, `/actions/<id>`): the account's actions beside the one open — its
// form, the `Test` panel and its recent runs — or, with none open, `Import from OpenAPI`. Imported actions are listed
// for review until each is saved. An agent reads actions and their runs; admins and the owner change and test them.
import { useEffect, useState } from 'preact/hooks';
import type { Action } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { AdminOnlyNote, useCanManage } from '../../role.tsx';
import { navigate } from '../../router.ts';
import { ErrorLine, Link } from '../../ui.tsx';
import { ActionForm } from './action-form.tsx';
import { ImportCard } from './import-card.tsx';
import { RecentRuns } from './recent-runs.tsx';
import { TestPanel } from './test-panel.tsx';
import { useActions } from './use-actions.ts';

function ActionList({ actions, selected, canManage }: { actions: Action[]; selected: string | undefined; canManage: boolean }) {
  return (
    <nav class="card action-list" aria-label="Actions list">
      {canManage && (
        <p>
          <Link href="/actions/new" label="New action" current={selected === 'new'}>
            + {t('New action')}
          </Link>
        </p>
      )}
      {actions.length === 0 && <p class="muted">{t('No actions yet.')}</p>}
      <ul>
        {actions.map((action) => (
          <li key={action.id} class={selected === action.id ? 'selected' : ''}>
            <Link href={`/actions/${action.id}`} label={action.name} current={selected === action.id}>
              {action.name}
            </Link>{' '}
            <span class="tag">{action.kind === 'read' ? t('read') : t('write')}</span>
            {!action.enabled && <span class="tag">{t('disabled')}</span>}
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The imported actions still to be reviewed and saved. */
function ReviewNote({ actions, review }: { actions: Action[]; review: string[] }) {
  const pending = review.map((id) => actions.find((action) => action.id === id)).filter((action): action is Action => action !== undefined);
  if (pending.length === 0) return null;
  return (
    <div class="notice" role="note" aria-label="Imported actions to review">
      {t('Imported, disabled until saved: review each and Save to enable it:')}{' '}
      {pending.map((action, i) => (
        <span key={action.id}>
          {i > 0 && ', '}
          <Link href={`/actions/${action.id}`}>{action.name}</Link>
        </span>
      ))}
    </div>
  );
}

function OpenAction({ id, reviewing, onChanged }: { id: string; reviewing: boolean; onChanged: (saved: Action | null) => void }) {
  const canManage = useCanManage();
  const [action, setAction] = useState<Action | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [runsVersion, setRunsVersion] = useState(0);
  useEffect(() => {
    setAction(null);
    api<Action>('GET', `/actions/${id}`).then(setAction, (failure) => setError(errorText(failure)));
  }, [id]);
  if (!action) return <ErrorLine error={error} />;
  const remove = async () => {
    await api('DELETE', `/actions/${id}`);
    onChanged(null);
    navigate('/actions');
  };
  return (
    <div class="grid">
      <h2>{action.name}</h2>
      <ActionForm
        action={action}
        reviewing={reviewing}
        onSaved={(saved) => {
          setAction(saved);
          onChanged(saved);
        }}
        onDelete={canManage ? remove : undefined}
      />
      {canManage && <TestPanel action={action} onRan={() => setRunsVersion((n) => n + 1)} />}
      <RecentRuns actionId={id} version={runsVersion} />
    </div>
  );
}

export function ActionsPage({ id }: { id?: string }) {
  const canManage = useCanManage();
  const { actions, error, reload } = useActions();
  const [review, setReview] = useState<string[]>([]);
  const changed = (saved: Action | null) => {
    if (saved) setReview((ids) => ids.filter((reviewed) => reviewed !== saved.id));
    void reload();
  };
  const imported = (created: Action[]) => {
    setReview(created.map((action) => action.id));
    void reload();
    if (created[0]) navigate(`/actions/${created[0].id}`);
  };

  return (
    <section class="actions-page">
      <h1>{t('Actions')}</h1>
      <p class="muted">{t("Calls to your own API (orders, bookings) that the agent makes in a chat: with no model, a knowledge entry answers with one; with a model, each action of a channel is a tool. Choose a channel's actions on its page.")}</p>
      {!canManage && <AdminOnlyNote text="Your role (agent) reads actions and their runs; an admin or the owner creates, tests and changes them." />}
      <ErrorLine error={error} />
      {actions && <ReviewNote actions={actions} review={review} />}
      <div class="actions-layout">
        <ActionList actions={actions ?? []} selected={id} canManage={canManage} />
        <div>
          {id === 'new' && canManage && (
            <ActionForm
              action={null}
              reviewing={false}
              onSaved={(saved) => {
                void reload();
                navigate(`/actions/${saved.id}`);
              }}
            />
          )}
          {id !== undefined && id !== 'new' && <OpenAction key={id} id={id} reviewing={review.includes(id)} onChanged={changed} />}
          {id === undefined && canManage && <ImportCard onImported={imported} />}
          {id === undefined && !canManage && <p class="muted">{t('Pick an action to read it and its runs.')}</p>}
        </div>
      </div>
    </section>
  );
}
