// A knowledge base's name, and its deletion (admins).
import { useState } from 'preact/hooks';
import type { KnowledgeBase } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { navigate } from '../../router.ts';

/** The base's name, renamed in place, and its deletion behind a confirmation (admins). */
export function RenameForm({ base, onRenamed, onError }: { base: KnowledgeBase; onRenamed: (base: KnowledgeBase) => void; onError: (error: string) => void }) {
  const [name, setName] = useState(base.name);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const rename = async (event: Event) => {
    event.preventDefault();
    try {
      onRenamed(await api<KnowledgeBase>('PUT', `/knowledge-bases/${base.id}`, { body: { name } }));
    } catch (failure) {
      onError(errorText(failure));
    }
  };
  const removeBase = async () => {
    try {
      await api('DELETE', `/knowledge-bases/${base.id}`);
      navigate('/knowledge-bases');
    } catch (failure) {
      onError(errorText(failure));
    }
  };
  return (
    <form class="card row" aria-label="Rename" onSubmit={rename}>
      <input aria-label="Name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <button type="submit" aria-label="Rename">
        {t('Rename')}
      </button>
      {confirmDelete ? (
        <>
          <button type="button" aria-label="Delete" onClick={removeBase}>
            {t('Delete')}
          </button>
          <button type="button" aria-label="Cancel" onClick={() => setConfirmDelete(false)}>
            {t('Cancel')}
          </button>
        </>
      ) : (
        <button type="button" aria-label="Delete knowledge base" onClick={() => setConfirmDelete(true)}>
          {t('Delete knowledge base')}
        </button>
      )}
    </form>
  );
}
