// The Inbox's search (issue #44, 1): the rules of a query (its words, the last one a prefix; a chat id), the
// filters of the chat list and the windows of reports, the cursor, and the snippet's HTML.
import { SEARCH_LIMIT_DEFAULT, type ChannelKind, type SearchHit, type SearchQuery } from '@parley/contracts';
import { dayOf } from '../conversations/reports-service.ts';
import type { Executor } from '../db/client.ts';
import { Errors } from '../errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { SearchAfter, SearchFilter, SearchRow, SearchStore } from './search-store.ts';

const DAY_MS = 24 * 60 * 60_000;
/** Words of a query beyond this many are ignored. */
const WORDS_MAX = 16;

/**
 * The to_tsquery input of a query: every word quoted (only letters, digits, marks and `@ . _ + -` are kept, so no
 * quote, backslash or operator of the tsquery syntax ever comes from the user), all of them required, the last one
 * also as a prefix. Empty when the query has no word.
 */
export function tsqueryOf(q: string): string {
  const words = q
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}\p{M}@._+-]+/gu, ' ')
    .split(' ')
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    .slice(0, WORDS_MAX);
  return words.map((word, i) => `'${word}'${i === words.length - 1 ? ':*' : ''}`).join(' & ');
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const MARKED: Record<string, string> = { '\uE000': '<mark>', '\uE001': '</mark>', '\uE002': '&lt;', '\uE003': '&gt;' };

/** ts_headline's text as HTML: everything escaped, then its match markers (search-store.ts) as `<mark>`. */
export function snippetHtml(headline: string): string {
  return headline
    .replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char)
    .replace(/[\uE000-\uE003]/g, (char) => MARKED[char] ?? char)
    .trim();
}

/** The opaque cursor of a page: base64url of `<rank>|<at ISO>|<id>` of its last hit. */
function encodeCursor(row: SearchRow): string {
  return Buffer.from(`${row.rank}|${row.at.toISOString()}|${row.message_id ?? row.chat_id}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): SearchAfter {
  const [rank, at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const after = { rank: Number(rank), at: new Date(at ?? ''), id: id ?? '' };
  if (rest.length > 0 || rank === undefined || rank === '' || !Number.isFinite(after.rank) || Number.isNaN(after.at.getTime()) || !isUuid(after.id)) {
    throw Errors.invalidCursor();
  }
  return after;
}

function hitOf(row: SearchRow): SearchHit {
  return {
    chatId: row.chat_id,
    messageId: row.message_id,
    chatName: row.chat_name,
    channelName: row.channel_kind as ChannelKind,
    at: row.at.toISOString(),
    snippet: snippetHtml(row.headline),
  };
}

export interface SearchServiceDeps {
  db: Executor;
  searchStore: (executor: Executor) => SearchStore;
}

export function createSearchService({ db, searchStore }: SearchServiceDeps) {
  return {
    /** One page of the account's hits, best first (`assignee=me`: the caller's chats). */
    async search(caller: { accountId: string; memberId: string }, query: SearchQuery): Promise<{ hits: SearchHit[]; nextCursor: string | null }> {
      const from = query.from !== undefined ? dayOf(query.from, 'from') : undefined;
      const to = query.to !== undefined ? dayOf(query.to, 'to') : undefined;
      if (from && to && to < from) throw Errors.reportRangeReversed();
      const after = query.cursor !== undefined ? decodeCursor(query.cursor) : undefined;
      const tsquery = tsqueryOf(query.q);
      if (tsquery === '') return { hits: [], nextCursor: null };
      const { assignee } = query;
      const trimmed = query.q.trim();
      const filter: SearchFilter = {
        accountId: caller.accountId,
        tsquery,
        ...(isUuid(trimmed) ? { chatId: trimmed.toLowerCase() } : {}),
        ...(query.channelId !== undefined ? { channelId: query.channelId } : {}),
        ...(query.status !== undefined ? { taskDone: query.status === 'done' } : {}),
        ...(assignee !== undefined ? { assigneeId: assignee === 'me' ? caller.memberId : assignee === 'none' ? null : assignee.toLowerCase() } : {}),
        ...(from ? { from } : {}),
        ...(to ? { until: new Date(to.getTime() + DAY_MS) } : {}),
      };
      const limit = query.limit ?? SEARCH_LIMIT_DEFAULT;
      const rows = await searchStore(db).search(filter, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return { hits: page.map(hitOf), nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
