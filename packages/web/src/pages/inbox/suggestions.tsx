// Reply suggestions above the composer (issue #44): in a chat that needs a person, the knowledge entries' answers,
// document passages and saved replies that match the customer's last message, and the channel model's draft, each
// labelled with its source. `Use` puts one in the reply box; nothing is sent until the member sends it.
import { useEffect, useState } from 'preact/hooks';
import type { InboxChat, Suggestion } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { ErrorLine } from '../../ui.tsx';

const SOURCE_LABELS: Record<Suggestion['source'], string> = {
  entry: 'Knowledge',
  passage: 'Document',
  saved_reply: 'Saved reply',
  model: 'Draft',
};

/** `asked`: the customer's last message id; a new one asks for suggestions again. */
export function Suggestions({ chat, asked, onUse }: { chat: InboxChat; asked: string | undefined; onUse: (text: string) => void }) {
  const [suggestions, setSuggestions] = useState<Suggestion[]>([]);
  const [error, setError] = useState<string | null>(null);
  const wanted = chat.needsHuman && asked !== undefined;
  useEffect(() => {
    setSuggestions([]);
    setError(null);
    if (!wanted) return;
    let current = true;
    api<{ suggestions: Suggestion[] }>('GET', `/chat/suggestions/${chat.id}/`).then(
      (result) => current && setSuggestions(result.suggestions),
      (failure: unknown) => current && setError(errorText(failure)),
    );
    return () => {
      current = false;
    };
  }, [chat.id, wanted, asked]);
  if (!wanted || (suggestions.length === 0 && error === null)) return null;
  return (
    <section class="suggestions" aria-label="Suggestions">
      <h3>{t('Suggested replies')}</h3>
      <ErrorLine error={error} />
      <ul>
        {suggestions.map((suggestion, i) => (
          <li key={`${suggestion.source}:${suggestion.ref ?? i}`} aria-label={`${SOURCE_LABELS[suggestion.source]} suggestion`}>
            <span class={`source source-${suggestion.source}`}>{t(SOURCE_LABELS[suggestion.source])}</span>
            <span class="text">{suggestion.text}</span>
            <button type="button" class="small" aria-label="Use" onClick={() => onUse(suggestion.text)}>
              {t('Use')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
