// Knowledge bases: list, create, rename, delete; documents uploaded by drag-and-drop or file picker, with their
// status, passages and errors; entries with search and paging, add, edit, delete.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { KnowledgeBase, KnowledgeDocument, KnowledgeEntry } from '@parley/contracts';
import { api, errorText } from '../api.ts';
import { useAction } from '../use-action.ts';
import { useLoadOrder } from '../load-order.ts';
import { t } from '../i18n.ts';
import { navigate } from '../router.ts';
import { ErrorLine, Field, Link } from '../ui.tsx';
import { AdminOnlyNote, useCanManage } from '../role.tsx';
import { KnowledgeUse } from './knowledge-use.tsx';
import { plural } from '../plural.ts';
import { GapsTab, type EntryPrefill } from './gaps.tsx';
import { LearnedQuestions } from './learned-questions.tsx';

const PAGE = 50;
/** While a document is being parsed, its list is read again this often. */
const DOCUMENTS_POLL_MS = 2_000;
const DOCUMENT_TYPES = '.pdf,.docx,.md,.markdown,.txt,.text,.html,.htm';

export function KnowledgeBasesPage() {
  const [bases, setBases] = useState<KnowledgeBase[]>([]);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const canManage = useCanManage();

  const load = () => api<{ knowledgeBases: KnowledgeBase[] }>('GET', '/knowledge-bases').then((r) => setBases(r.knowledgeBases), (e) => setError(errorText(e)));
  useEffect(() => void load(), []);

  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const base = await api<KnowledgeBase>('POST', '/knowledge-bases', { body: { name } });
      navigate(`/knowledge-bases/${base.id}`);
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <section>
      <h1>{t('Knowledge bases')}</h1>
      {canManage ? (
        <form class="card row" aria-label="Create knowledge base" onSubmit={create}>
          <input aria-label="Knowledge base name" placeholder={t('Name')} required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" aria-label="Create">
            {t('Create')}
          </button>
        </form>
      ) : (
        <AdminOnlyNote text="Your role (agent) reads knowledge bases; an admin or the owner creates and edits them. Corrections from the Inbox still reach them." />
      )}
      <ErrorLine error={error} />
      <table class="list">
        <tbody>
          {bases.map((base) => (
            <tr key={base.id}>
              <td>
                <Link href={`/knowledge-bases/${base.id}`}>{base.name}</Link>
              </td>
              <td>{base.language}</td>
              <td>
                {plural(base.entryCount, 'entry', 'entries')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function EntryForm({ entry, initial, onSave, onCancel }: { entry?: KnowledgeEntry; initial?: EntryPrefill; onSave: (body: { question: string; answer: string; synonyms: string[] }) => Promise<void>; onCancel?: () => void }) {
  const [question, setQuestion] = useState(entry?.question ?? initial?.question ?? '');
  const [synonyms, setSynonyms] = useState((entry?.synonyms ?? []).join('\n'));
  const [answer, setAnswer] = useState(entry?.answer ?? initial?.answer ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      await onSave({ question, answer, synonyms: synonyms.split('\n').map((s) => s.trim()).filter(Boolean) });
      if (!entry) {
        setQuestion('');
        setSynonyms('');
        setAnswer('');
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

/**
 * The base's OpenAI-compatible embeddings provider: base URL, model, API key (write-only: left empty, the stored
 * key is kept for the same URL). Saving or removing it re-embeds the entries in the background.
 */
function EmbeddingsForm({ base, onSaved }: { base: KnowledgeBase; onSaved: (base: KnowledgeBase) => void }) {
  const [baseUrl, setBaseUrl] = useState(base.embeddings?.baseUrl ?? '');
  const [model, setModel] = useState(base.embeddings?.model ?? '');
  const [apiKey, setApiKey] = useState('');
  const { busy, error, run } = useAction();
  const save = async (embeddings: { baseUrl: string; model: string; apiKey?: string } | null) => {
    await run(async () => {
      const saved = await api<KnowledgeBase>('PUT', `/knowledge-bases/${base.id}`, { body: { embeddings } });
      setApiKey('');
      if (!saved.embeddings) {
        setBaseUrl('');
        setModel('');
      }
      onSaved(saved);
    });
  };
  const submit = (event: Event) => {
    event.preventDefault();
    void save({ baseUrl: baseUrl.trim(), model: model.trim(), ...(apiKey ? { apiKey } : {}) });
  };
  return (
    <form class="card grid" aria-label="Embeddings provider" onSubmit={submit} aria-busy={busy}>
      <fieldset class="plain" disabled={busy}>
        <p>{t('Optional: an OpenAI-compatible embeddings server instead of the built-in encoder.')}</p>
        <Field label={t('Base URL')}>
          <input aria-label="Embeddings base URL" type="url" required maxLength={2000} placeholder="https://api.openai.com/v1" value={baseUrl} onInput={(e) => setBaseUrl(e.currentTarget.value)} />
        </Field>
        <Field label={t('Model')}>
          <input aria-label="Embeddings model" required maxLength={200} placeholder="text-embedding-3-small" value={model} onInput={(e) => setModel(e.currentTarget.value)} />
        </Field>
        <Field label={t('API key')}>
          <input
            aria-label="Embeddings API key"
            type="password"
            autocomplete="off"
            maxLength={500}
            placeholder={base.embeddings?.apiKeySet ? t('stored (leave empty to keep)') : ''}
            value={apiKey}
            onInput={(e) => setApiKey(e.currentTarget.value)}
          />
        </Field>
        <ErrorLine error={error} />
        <div class="row">
          <button type="submit" aria-label="Save embeddings provider">
            {t('Save')}
          </button>
          {base.embeddings && (
            <button type="button" aria-label="Remove embeddings provider" onClick={() => void save(null)}>
              {t('Remove')}
            </button>
          )}
        </div>
      </fieldset>
    </form>
  );
}

const STATUS_LABELS: Record<KnowledgeDocument['status'], string> = { processing: 'Processing…', ready: 'Ready', failed: 'Failed' };

/**
 * The base's documents: dropped on the panel or picked, uploaded one by one; listed with status, passages and why
 * one failed, read again while any is being parsed. Names and errors are text nodes: a document never renders as HTML.
 */
function Documents({ baseId, canManage }: { baseId: string; canManage: boolean }) {
  const [documents, setDocuments] = useState<KnowledgeDocument[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [uploading, setUploading] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);

  const load = useCallback(async () => {
    try {
      setDocuments((await api<{ documents: KnowledgeDocument[] }>('GET', `/knowledge-bases/${baseId}/documents`)).documents);
    } catch (failure) {
      setError(errorText(failure));
    }
  }, [baseId]);
  useEffect(() => void load(), [load]);
  const processing = documents.some((document) => document.status === 'processing');
  useEffect(() => {
    if (!processing) return;
    const timer = setInterval(() => void load(), DOCUMENTS_POLL_MS);
    return () => clearInterval(timer);
  }, [processing, load]);

  const upload = async (files: Iterable<File>) => {
    setError(null);
    for (const file of files) {
      setUploading(file.name);
      try {
        const form = new FormData();
        form.append('file', file, file.name);
        await api('POST', `/knowledge-bases/${baseId}/documents`, { form });
      } catch (failure) {
        setError(`${file.name}: ${errorText(failure)}`);
      }
    }
    setUploading(null);
    await load();
  };
  const remove = async (documentId: string) => {
    try {
      await api('DELETE', `/knowledge-bases/${baseId}/documents/${documentId}`);
      await load();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <section
      class={dragging ? 'card documents dragging' : 'card documents'}
      aria-label="Documents"
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        if (event.dataTransfer?.files.length) void upload([...event.dataTransfer.files]);
      }}
    >
      <h2>{t('Documents')}</h2>
      {canManage && <p class="muted">{t('Drop PDF, DOCX, Markdown, text or HTML files here (up to 20 MB each), or pick them.')}</p>}
      {canManage && <label class="field">
        <span>{t('Upload document')}</span>
        <input
          type="file"
          multiple
          accept={DOCUMENT_TYPES}
          aria-label="Upload document"
          disabled={uploading !== null}
          onChange={(event) => {
            const input = event.currentTarget;
            const files = [...(input.files ?? [])];
            input.value = '';
            void upload(files);
          }}
        />
      </label>}
      {uploading !== null && (
        <p class="status" role="status">
          {t('Uploading')} {uploading}…
        </p>
      )}
      <ErrorLine error={error} />
      {documents.length > 0 && (
        <table class="list" aria-label="Document list">
          <tbody>
            {documents.map((document) => (
              <tr key={document.id} data-status={document.status}>
                <td>{document.name}</td>
                <td>{document.kind}</td>
                <td aria-label="Status">{t(STATUS_LABELS[document.status])}</td>
                <td>{plural(document.passages, 'passage', 'passages')}</td>
                <td class="document-error">{document.error ?? ''}</td>
                <td>
                  {canManage && (
                    <button type="button" class="small" aria-label={`Delete document ${document.name}`} onClick={() => void remove(document.id)}>
                      {t('Delete')}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * One entry of the base as shown: its question, synonyms and answer, and the buttons that edit or delete it. The
 * page keeps the list item itself, the same element whether the entry is shown or edited.
 */
function EntryView({ entry, onEdit, onDelete }: { entry: KnowledgeEntry; onEdit?: () => void; onDelete?: () => void }) {
  return (
    <>
      <strong>{entry.question}</strong>
      {entry.source === 'correction' && <span class="tag">{t('From a correction')}</span>}
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

/** The base's name, renamed in place, and its deletion behind a confirmation (admins). */
function RenameForm({ base, onRenamed, onError }: { base: KnowledgeBase; onRenamed: (base: KnowledgeBase) => void; onError: (error: string) => void }) {
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

export function KnowledgeBasePage({ id }: { id: string }) {
  const [base, setBase] = useState<KnowledgeBase | null>(null);
  const [entries, setEntries] = useState<KnowledgeEntry[]>([]);
  const [count, setCount] = useState(0);
  const [offset, setOffset] = useState(0);
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tab, setTab] = useState<'entries' | 'gaps'>('entries');
  const [prefill, setPrefill] = useState<EntryPrefill | null>(null);
  const canManage = useCanManage();

  // Each keystroke of the search loads: only the newest answer is shown.
  const order = useLoadOrder();
  const loadEntries = useCallback(async () => {
    const current = order.begin();
    try {
      const result = await api<{ entries: KnowledgeEntry[]; count: number }>('GET', `/knowledge-bases/${id}/entries`, {
        query: { limit: PAGE, offset, q: search.trim() || undefined },
      });
      if (!order.isNewest(current)) return;
      setEntries(result.entries);
      setCount(result.count);
    } catch (failure) {
      if (order.isNewest(current)) setError(errorText(failure));
    }
  }, [id, offset, search]);

  useEffect(() => {
    api<{ knowledgeBases: KnowledgeBase[] }>('GET', '/knowledge-bases').then((r) => {
      const found = r.knowledgeBases.find((b) => b.id === id) ?? null;
      setBase(found);
    }, (e) => setError(errorText(e)));
  }, [id]);
  useEffect(() => void loadEntries(), [loadEntries]);

  const removeEntry = async (entryId: string) => {
    try {
      await api('DELETE', `/knowledge-bases/${id}/entries/${entryId}`);
      await loadEntries();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

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
          onCancel={() => setPrefill(null)}
          onSave={async (body) => {
            await api('POST', `/knowledge-bases/${id}/entries`, { body });
            setPrefill(null);
            await loadEntries();
          }}
        />
      )}
      {tab === 'gaps' && <GapsTab baseId={id} canManage={canManage} onCreate={setPrefill} />}
      {tab === 'entries' && (
        <>
      {canManage && (
        <EntryForm
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
              {canManage ? <EntryView entry={entry} onEdit={() => setEditing(entry.id)} onDelete={() => removeEntry(entry.id)} /> : <EntryView entry={entry} />}
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
      )}
    </section>
  );
}
