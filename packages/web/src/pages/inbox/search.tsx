// The Inbox's search (issue #44, 1): a box above the chat list (`/` focuses it when not typing in a field); while
// it holds words its hits replace the list, best first, with the list's assignee, channel and done filters; a hit
// opens its chat at the matching message.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SearchHit } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { useLoadOrder } from '../../load-order.ts';
import { ErrorLine, formatTime } from '../../ui.tsx';
import { kindLabel } from '../channels.tsx';
import type { Filters } from './filters.ts';

/** How long typing pauses before the words are searched. */
const TYPING_PAUSE_MS = 250;

/** Whether a key press is typing in a field (where `/` is a character, not a shortcut). */
export function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT';
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescaped = (html: string): string => html.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);

/** The snippet's escaped HTML as text and <mark> elements: never parsed as markup. */
function Snippet({ html }: { html: string }) {
  const parts = html.split(/(<mark>[\s\S]*?<\/mark>)/);
  return (
    <span class="preview snippet">
      {parts.map((part, i) => (part.startsWith('<mark>') ? <mark key={i}>{unescaped(part.slice('<mark>'.length, -'</mark>'.length))}</mark> : unescaped(part)))}
    </span>
  );
}

/** The hits of the words with the list's filters: the first page when either changes, then `more`. */
export function useSearch(filters: Filters) {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const order = useLoadOrder();
  const words = q.trim();
  const query = { q: words, assignee: filters.assignee, channelId: filters.channelId, status: filters.done ? 'done' : '' };

  const load = async (cursor: string | null) => {
    const current = order.begin();
    setSearching(true);
    try {
      const page = await api<{ hits: SearchHit[]; nextCursor: string | null }>('GET', '/search', { query: { ...query, cursor: cursor ?? '' } });
      if (!order.isNewest(current)) return;
      setHits((shown) => (cursor === null ? page.hits : [...shown, ...page.hits]));
      setNextCursor(page.nextCursor);
      setError(null);
    } catch (failure) {
      if (order.isNewest(current)) setError(errorText(failure));
    } finally {
      if (order.isNewest(current)) setSearching(false);
    }
  };

  useEffect(() => {
    if (words === '') {
      order.begin();
      setHits([]);
      setNextCursor(null);
      setSearching(false);
      setError(null);
      return;
    }
    const timer = setTimeout(() => void load(null), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [words, filters.assignee, filters.channelId, filters.done]);

  return { q, setQ, active: words !== '', hits, nextCursor, searching, error, more: () => void load(nextCursor) };
}

export type Search = ReturnType<typeof useSearch>;

/** The search box; `/` anywhere but in a field focuses it, Escape in it clears it. */
export function SearchBox({ search }: { search: Search }) {
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
      event.preventDefault();
      box.current?.focus();
      box.current?.select();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  return (
    <input
      ref={box}
      type="search"
      class="search"
      aria-label="Search conversations"
      aria-keyshortcuts="/"
      placeholder={t('Search conversations (/)')}
      value={search.q}
      onInput={(e) => search.setQ(e.currentTarget.value)}
      onKeyDown={(e) => {
        if (e.key === 'Escape') search.setQ('');
      }}
    />
  );
}

/** The hits in place of the chat list: each opens its chat at its message. */
export function SearchResults({ search, onOpen }: { search: Search; onOpen: (hit: SearchHit) => void }) {
  return (
    <>
      <p class="muted" aria-live="polite">
        {search.searching && search.hits.length === 0 ? t('Searching…') : search.hits.length === 0 ? t('Nothing found') : `${search.hits.length}${search.nextCursor ? '+' : ''} ${t('found')}`}
      </p>
      <ErrorLine error={search.error} />
      <ul aria-label="Search results">
        {search.hits.map((hit) => (
          <li key={`${hit.chatId}:${hit.messageId ?? ''}`}>
            <button type="button" class="chat-item" onClick={() => onOpen(hit)}>
              <span class="name">{hit.chatName}</span>
              <Snippet html={hit.snippet} />
              <span class="muted small">
                {kindLabel(hit.channelName)} · {formatTime(hit.at)}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {search.nextCursor && (
        <button type="button" aria-label="More results" disabled={search.searching} onClick={search.more}>
          {t('More results')}
        </button>
      )}
    </>
  );
}
