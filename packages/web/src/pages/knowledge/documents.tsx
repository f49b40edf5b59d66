// A knowledge base's documents: uploaded by drag-and-drop or file picker (admins), listed with their status,
// passages and errors.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { KnowledgeDocument } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { plural } from '../../plural.ts';
import { ErrorLine } from '../../ui.tsx';

/** While a document is being parsed, its list is read again this often. */
const DOCUMENTS_POLL_MS = 2_000;
const DOCUMENT_TYPES = '.pdf,.docx,.md,.markdown,.txt,.text,.html,.htm';

const STATUS_LABELS: Record<KnowledgeDocument['status'], string> = { processing: 'Processing…', ready: 'Ready', failed: 'Failed' };

/**
 * The base's documents: dropped on the panel or picked, uploaded one by one; listed with status, passages and why
 * one failed, read again while any is being parsed. Names and errors are text nodes: a document never renders as HTML.
 */
export function Documents({ baseId, canManage }: { baseId: string; canManage: boolean }) {
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
