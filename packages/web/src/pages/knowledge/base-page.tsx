// A knowledge base: its name and deletion, where it is used, its embeddings provider and documents (admins edit),
// then two tabs: its entries with search and paging (entries-tab.tsx), and the knowledge gaps (gaps.tsx), whose
// `Create entry` opens the entry form prefilled.
import { useEffect, useState } from 'preact/hooks';
import type { KnowledgeBase } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { AdminOnlyNote, useCanManage } from '../../role.tsx';
import { ErrorLine, Link } from '../../ui.tsx';
import { Documents } from './documents.tsx';
import { EmbeddingsForm } from './embeddings-form.tsx';
import { EntriesTab } from './entries-tab.tsx';
import { EntryForm } from './entry-form.tsx';
import { GapsTab, type EntryPrefill } from './gaps.tsx';
import { KnowledgeUse } from './knowledge-use.tsx';
import { RenameForm } from './rename-form.tsx';
import { useEntries } from './use-entries.ts';
import { useActions } from '../actions/use-actions.ts';

export function KnowledgeBasePage({ id }: { id: string }) {
  const [base, setBase] = useState<KnowledgeBase | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tab, setTab] = useState<'entries' | 'gaps'>('entries');
  const [prefill, setPrefill] = useState<EntryPrefill | null>(null);
  const canManage = useCanManage();

  useEffect(() => {
    api<{ knowledgeBases: KnowledgeBase[] }>('GET', '/knowledge-bases').then((r) => {
      const found = r.knowledgeBases.find((b) => b.id === id) ?? null;
      setBase(found);
    }, (e) => setError(errorText(e)));
  }, [id]);
  const list = useEntries(id, setError);
  const actions = useActions().actions ?? [];

  if (!base) return <ErrorLine error={error} />;
  return (
    <section>
      <p>
        <Link href="/knowledge-bases">← {t('Knowledge bases')}</Link>
      </p>
      <h1>{base.name}</h1>
      <KnowledgeUse baseId={id} />
      {!canManage && <AdminOnlyNote text="Your role (agent) reads this knowledge base; an admin or the owner edits it. Corrections from the Inbox still reach it." />}
      {canManage && <RenameForm base={base} onRenamed={setBase} onError={setError} />}
      <ErrorLine error={error} />
      {canManage && <EmbeddingsForm base={base} onSaved={setBase} />}
      <Documents baseId={id} canManage={canManage} />
      <div class="row" role="tablist" aria-label="Knowledge base views">
        <button type="button" role="tab" aria-label="Entries" aria-selected={tab === 'entries'} onClick={() => setTab('entries')}>
          {t('Entries')}
        </button>
        <button type="button" role="tab" aria-label="Gaps" aria-selected={tab === 'gaps'} onClick={() => setTab('gaps')}>
          {t('Gaps')}
        </button>
      </div>
      {tab === 'gaps' && prefill && (
        <EntryForm
          key={`${prefill.question}\n${prefill.answer}`}
          initial={prefill}
          actions={actions}
          onCancel={() => setPrefill(null)}
          onSave={async (body) => {
            await api('POST', `/knowledge-bases/${id}/entries`, { body });
            setPrefill(null);
            await list.loadEntries();
          }}
        />
      )}
      {tab === 'gaps' && <GapsTab baseId={id} canManage={canManage} onCreate={setPrefill} />}
      {tab === 'entries' && <EntriesTab id={id} canManage={canManage} actions={actions} list={list} editing={editing} setEditing={setEditing} />}
    </section>
  );
}
