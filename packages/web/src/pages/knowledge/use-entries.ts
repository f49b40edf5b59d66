// A knowledge base's entries as its page shows them: a page of PAGE from `offset`, filtered by the search; each
// keystroke of the search loads, and only the newest answer is shown. Errors go to the page's error line.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { KnowledgeEntry } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { useLoadOrder } from '../../load-order.ts';

export const PAGE = 50;

export function useEntries(id: string, setError: (error: string) => void) {
  const [entries, setEntries] = useState<KnowledgeEntry[]>([]);
  const [count, setCount] = useState(0);
  const [offset, setOffset] = useState(0);
  const [search, setSearch] = useState('');

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
  useEffect(() => void loadEntries(), [loadEntries]);

  const removeEntry = async (entryId: string) => {
    try {
      await api('DELETE', `/knowledge-bases/${id}/entries/${entryId}`);
      await loadEntries();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return { entries, count, offset, setOffset, search, setSearch, loadEntries, removeEntry };
}

export type EntriesList = ReturnType<typeof useEntries>;
