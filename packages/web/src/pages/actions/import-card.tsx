// `Import from OpenAPI`: a document pasted or read from a file, its operations listed by the server (the same reading
// as the import's, so no YAML parser in the page), some picked, `Import` → disabled actions to review and save.
import { useState } from 'preact/hooks';
import type { Action, OpenApiOperation } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { useAction } from '../../use-action.ts';
import { ErrorLine, Field } from '../../ui.tsx';

function OperationsList({ operations, picked, setPicked }: { operations: OpenApiOperation[]; picked: Set<string>; setPicked: (picked: Set<string>) => void }) {
  const toggle = (operationId: string, on: boolean) => {
    const next = new Set(picked);
    if (on) next.add(operationId);
    else next.delete(operationId);
    setPicked(next);
  };
  if (operations.length === 0) return <p class="muted">{t('The document has no operation with an operationId.')}</p>;
  return (
    <fieldset class="grid" aria-label="Operations">
      <legend>{t('Operations')}</legend>
      {operations.map((operation) => (
        <label key={operation.operationId} class="check">
          <input type="checkbox" aria-label={operation.operationId} checked={picked.has(operation.operationId)} onChange={(e) => toggle(operation.operationId, e.currentTarget.checked)} />
          <span>
            <code>
              {operation.method} {operation.path}
            </code>{' '}
            <strong>{operation.operationId}</strong>
            {operation.summary && <span class="muted"> — {operation.summary}</span>} <span class="tag">{operation.kind === 'read' ? t('read') : t('write')}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

export function ImportCard({ onImported }: { onImported: (actions: Action[]) => void }) {
  const [openapi, setOpenapi] = useState('');
  const [operations, setOperations] = useState<OpenApiOperation[] | null>(null);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const { busy, error, run } = useAction();

  const list = (text: string) =>
    run(async () => {
      setOperations(null);
      const preview = await api<{ operations: OpenApiOperation[] }>('POST', '/actions/import/preview', { body: { openapi: text } });
      setOperations(preview.operations);
      setPicked(new Set());
    });
  const readFile = (file: File | undefined) => {
    if (!file) return;
    void file.text().then((text) => {
      setOpenapi(text);
      return list(text);
    });
  };
  const importPicked = () =>
    run(async () => {
      const chosen = (operations ?? []).map((o) => o.operationId).filter((id) => picked.has(id));
      const created = await api<{ actions: Action[] }>('POST', '/actions/import', { body: { openapi, operations: chosen } });
      setOperations(null);
      setPicked(new Set());
      setOpenapi('');
      onImported(created.actions);
    });

  return (
    <section class="card grid" aria-label="Import from OpenAPI">
      <h2>{t('Import from OpenAPI')}</h2>
      <p class="muted small">{t('An OpenAPI 3 document (JSON or YAML) of your API: each operation you pick becomes an action with its path and query parameters, disabled until you review and save it.')}</p>
      <Field label={t('OpenAPI document')}>
        <textarea aria-label="OpenAPI document" rows={6} value={openapi} onInput={(e) => setOpenapi(e.currentTarget.value)} />
      </Field>
      <Field label={t('Or a file')}>
        <input type="file" aria-label="OpenAPI file" accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml" onChange={(e) => readFile(e.currentTarget.files?.[0])} />
      </Field>
      <div class="row">
        <button type="button" aria-label="List operations" disabled={busy || !openapi.trim()} onClick={() => void list(openapi)}>
          {t('List operations')}
        </button>
      </div>
      <ErrorLine error={error} />
      {operations && <OperationsList operations={operations} picked={picked} setPicked={setPicked} />}
      {operations && operations.length > 0 && (
        <div class="row">
          <button type="button" aria-label="Import" disabled={busy || picked.size === 0} onClick={() => void importPicked()}>
            {t('Import')}
          </button>
        </div>
      )}
    </section>
  );
}
