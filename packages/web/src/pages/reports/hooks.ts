// The reports page's data: the query in the URL, the summary, the channel and member lists, and a figure's
// conversations page by page.
import { useEffect, useState } from 'preact/hooks';
import type { Channel, Member } from '@parley/contracts';
import { api, apiFile, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { apiQuery, ledgerQueryOf, reportQueryOf, searchOf, type LedgerQuery, type ReportQuery } from './query.ts';
import type { Ledger, LedgerConversation, ReportSummary } from './types.ts';

/** The longest window the server reports on, in days (both ends included). */
const REPORT_DAYS_MAX = 366;

/** The report's filters, read from and written to the address (replaced, so Back leaves the page). */
export function useReportQuery(): [ReportQuery, (changes: Partial<ReportQuery>) => void] {
  const [query, setQuery] = useState(() => reportQueryOf(location.search));
  const change = (changes: Partial<ReportQuery>) => {
    const next = { ...query, ...changes };
    history.replaceState(null, '', `${location.pathname}${searchOf(next)}`);
    setQuery(next);
  };
  return [query, change];
}

/** The ledger's query, following the address (Back and Forward between two figures' lists keep the path). */
export function useLedgerQuery(): LedgerQuery {
  const [search, setSearch] = useState(location.search);
  useEffect(() => {
    const follow = () => setSearch(location.search);
    addEventListener('popstate', follow);
    return () => removeEventListener('popstate', follow);
  }, []);
  return ledgerQueryOf(search);
}

export function useSummary(query: ReportQuery): { summary: ReportSummary | null; error: string | null; loading: boolean } {
  const [summary, setSummary] = useState<ReportSummary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const key = searchOf(query);
  useEffect(() => {
    let current = true;
    setError(null);
    setLoading(true);
    const days = (Date.parse(query.to) - Date.parse(query.from)) / 86_400_000 + 1;
    if (!(days >= 1 && days <= REPORT_DAYS_MAX)) {
      setSummary(null);
      setError(t('Choose a range of 1 to 366 days, the first day before the last.'));
      setLoading(false);
      return undefined;
    }
    api<ReportSummary>('GET', '/reports/summary', { query: apiQuery(query) })
      .then(
        (result) => current && setSummary(result),
        (failure) => current && setError(errorText(failure)),
      )
      .finally(() => current && setLoading(false));
    return () => void (current = false);
  }, [key]);
  return { summary, error, loading };
}

/** The account's channels and members, for the filters and for names in the ledger. */
export function useLists(): { channels: Channel[]; members: Member[] } {
  const [channels, setChannels] = useState<Channel[]>([]);
  const [members, setMembers] = useState<Member[]>([]);
  useEffect(() => {
    api<{ channels: Channel[] }>('GET', '/channels/all/').then((r) => setChannels(r.channels), () => undefined);
    api<{ members: Member[] }>('GET', '/members/').then((r) => setMembers(r.members.filter((m) => m.status === 'active')), () => undefined);
  }, []);
  return { channels, members };
}

const PAGE = 50;

export function useLedger(query: LedgerQuery) {
  const [rows, setRows] = useState<LedgerConversation[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const key = searchOf(query);

  const load = async (from: string | undefined, kept: LedgerConversation[]) => {
    setBusy(true);
    setError(null);
    try {
      const page = await api<Ledger>('GET', '/reports/conversations', { query: { ...apiQuery(query), limit: PAGE, cursor: from } });
      setRows([...kept, ...page.conversations]);
      setCursor(page.nextCursor);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    setRows([]);
    setCursor(undefined);
    void load(undefined, []);
  }, [key]);
  return { rows, more: typeof cursor === 'string', loaded: cursor !== undefined, busy, error, loadMore: () => void load(cursor ?? undefined, rows) };
}

/** Saves the conversations of the report as CSV (a fetch with the session, then a Blob the browser downloads). */
export async function downloadCsv(query: ReportQuery): Promise<void> {
  const blob = await apiFile('/reports/conversations.csv', apiQuery(query));
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = `conversations-${query.from}-${query.to}.csv`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
