// The `Entries` tab of a knowledge base: a new entry (admins), the search, the list with each entry shown or edited
// in place and its learned phrasings, and the paging.
import type { Action, KnowledgeEntry } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { EntryForm } from './entry-form.tsx';
import { LearnedQuestions } from './learned-questions.tsx';
import { PAGE, type EntriesList } from './use-entries.ts';

/**
 * One entry of the base as shown: its question, synonyms and answer, and the buttons that edit or delete it. The
 * page keeps the list item itself, the same element whether the entry is shown or edited.
 */
function EntryView({ entry, actions, onEdit, onDelete }: { entry: KnowledgeEntry; actions: Action[]; onEdit?: () => void; onDelete?: () => void }) {
  const action = entry.actionId === null ? undefined : actions.find((a) => a.id === entry.actionId);
  return (
    <>
      <strong>{entry.question}</strong>
      {entry.source === 'correction' && <span class="tag">{t('From a correction')}</span>}
      {entry.actionId !== null && (
        <span class="tag">
          {t('Answers with')} {action?.name ?? '…'}
        </span>
      )}
      {entry.synonyms.length > 0 && <p class="muted">{entry.synonyms.join(' · ')}</p>}
      <p class="text">{entry.answer}</p>
      {onEdit && onDelete && (
        <div class="row">
          <button type="button" class="small" aria-label={`Edit ${entry.question}`} onClick={onEdit}>
            {t('Edit')}
          </button>
          <button type="button" class="small" aria-label={`Delete ${entry.question}`} onClick={onDelete}>
            {t('Delete')}
          </button>
        </div>
      )}
    </>
  );
}

export function EntriesTab({
  id,
  canManage,
  actions,
  list,
  editing,
  setEditing,
}: {
  id: string;
  canManage: boolean;
  /** The account's actions (an entry may answer with one). */
  actions: Action[];
  list: EntriesList;
  editing: string | null;
  setEditing: (entryId: string | null) => void;
}) {
  const { entries, count, offset, setOffset, search, setSearch, loadEntries, removeEntry } = list;
  return (
    <>
      {canManage && (
        <EntryForm
          actions={actions}
          onSave={async (body) => {
            await api('POST', `/knowledge-bases/${id}/entries`, { body });
            await loadEntries();
          }}
        />
      )}
      <h2>
        {t('Entries')} ({count})
      </h2>
      <input
        type="search"
        aria-label="Search entries"
        placeholder={t('Search')}
        value={search}
        onChange={(e) => {
          setOffset(0);
          setSearch(e.currentTarget.value);
        }}
      />
      <ul class="entries" aria-label="Entries">
        {entries.map((entry) =>
          editing === entry.id ? (
            <li key={entry.id}>
              <EntryForm
                entry={entry}
                actions={actions}
                onCancel={() => setEditing(null)}
                onSave={async (body) => {
                  await api('PUT', `/knowledge-bases/${id}/entries/${entry.id}`, { body });
                  setEditing(null);
                  await loadEntries();
                }}
              />
            </li>
          ) : (
            <li key={entry.id} class="card">
              {canManage ? <EntryView entry={entry} actions={actions} onEdit={() => setEditing(entry.id)} onDelete={() => removeEntry(entry.id)} /> : <EntryView entry={entry} actions={actions} />}
              {canManage && <LearnedQuestions baseId={id} entry={entry} onChanged={() => void loadEntries()} />}
            </li>
          ),
        )}
      </ul>
      <div class="row">
        <button type="button" aria-label="Newer" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          {t('Newer')}
        </button>
        <button type="button" aria-label="Older" disabled={offset + entries.length >= count} onClick={() => setOffset(offset + PAGE)}>
          {t('Older')}
        </button>
      </div>
    </>
  );
}
