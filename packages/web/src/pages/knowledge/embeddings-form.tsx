// A knowledge base's embeddings provider, instead of the built-in encoder (admins).
import { useState } from 'preact/hooks';
import type { KnowledgeBase } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { ErrorLine, Field } from '../../ui.tsx';
import { useAction } from '../../use-action.ts';

/**
 * The base's OpenAI-compatible embeddings provider: base URL, model, API key (write-only: left empty, the stored
 * key is kept for the same URL). Saving or removing it re-embeds the entries in the background.
 */
export function EmbeddingsForm({ base, onSaved }: { base: KnowledgeBase; onSaved: (base: KnowledgeBase) => void }) {
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
