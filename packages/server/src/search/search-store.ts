// SQL of the Inbox's search (migration 0037): the account's messages, notes and chats matching a query, best first.
import type { Executor } from '../db/client.ts';
import { preparedRows } from '../db/prepared.ts';

/** What a search reads: the account, the query, the chat filters, the hits' time window and the page. */
export interface SearchFilter {
  accountId: string;
  /** to_tsquery input built by the service (quoted words only: user text never reaches it as syntax). */
  tsquery: string;
  /** The query when it is a chat id (a uuid): that chat is the best hit. */
  chatId?: string;
  channelId?: string;
  taskDone?: boolean;
  /** A member's chats, or (null) unassigned ones. */
  assigneeId?: string | null;
  /** The hits' time: [from, until). */
  from?: Date;
  until?: Date;
}

/** Where a page starts: after this hit in the order (rank, at, id), all descending. */
export interface SearchAfter {
  rank: number;
  at: Date;
  id: string;
}

export interface SearchRow {
  /** `m` a message, `n` a note, `c` the chat (name, e-mail or id). */
  kind: 'm' | 'n' | 'c';
  message_id: string | null;
  chat_id: string;
  at: Date;
  rank: number;
  chat_name: string;
  channel_kind: string;
  /** ts_headline's text: `<` `>` as U+E002/U+E003, matches between U+E000 and U+E001 (search-service.ts escapes it). */
  headline: string;
}

// ts_headline marks matches with private-use characters (removed from the text before), and `<`/`>` are replaced
// by two others so that its parser sees no HTML tags (it would drop them): the service escapes and maps them back.
const MARKS = `'StartSel=' || chr(57344) || ', StopSel=' || chr(57345) || ', MaxWords=30, MinWords=12, ShortWord=2'`;
const SAFE_TEXT = (column: string) => `translate(${column}, '<>' || chr(57344) || chr(57345), chr(57346) || chr(57347))`;

/** The text a chat matches by: its name and the customer's e-mail (the expression of chats_search_idx). */
const CHAT_VECTOR = `to_tsvector('simple'::regconfig, c.dialog_name || ' ' || coalesce(c.email, ''))`;

/**
 * One page in one statement. The query is the union of the query parsed in every configuration the account's
 * channels use and in `simple` (a message is indexed in its channel's configuration when it was written); chats
 * match by their name and e-mail in `simple`, or by id.
 */
function searchText(filter: SearchFilter, after: SearchAfter | undefined, values: unknown[]): string {
  const param = (value: unknown): string => `$${values.push(value)}`;
  // $1 the account, $2 the query, $3 the page's size; then the filters present.
  const [account, words] = ['$1', '$2'];
  const chatId = filter.chatId !== undefined ? `${param(filter.chatId)}::uuid` : undefined;
  const chatConditions: string[] = [];
  if (filter.channelId !== undefined) chatConditions.push(`c.channel_id = ${param(filter.channelId)}`);
  if (filter.taskDone !== undefined) chatConditions.push(filter.taskDone ? 'c.task_done' : 'NOT c.task_done');
  if (filter.assigneeId === null) chatConditions.push('c.assignee_id IS NULL');
  else if (filter.assigneeId !== undefined) chatConditions.push(`c.assignee_id = ${param(filter.assigneeId)}::uuid`);
  const from = filter.from ? `${param(filter.from)}::timestamptz` : undefined;
  const until = filter.until ? `${param(filter.until)}::timestamptz` : undefined;
  const window = (column: string): string[] => [...(from ? [`${column} >= ${from}`] : []), ...(until ? [`${column} < ${until}`] : [])];
  // Messages and notes: from their GIN index, then their chat when a chat filter is set.
  const written = (table: string, alias: string): string => {
    const join = chatConditions.length > 0 ? `JOIN chats c ON c.id = ${alias}.chat_id AND ${chatConditions.join(' AND ')}` : '';
    const where = [`${alias}.search_vector @@ query.q`, `${alias}.account_id = ${account}`, ...window(`${alias}.created_at`)];
    return `SELECT '${alias}' AS kind, ${alias}.id AS message_id, ${alias}.chat_id, ${alias}.created_at AS at,
        ts_rank(${alias}.search_vector, query.q) AS rank
      FROM query CROSS JOIN ${table} ${alias} ${join} WHERE ${where.join(' AND ')}`;
  };
  // Chats: from chats_search_idx (and the primary key for an id); an id outranks every text match.
  const chatMatch = chatId ? `(${CHAT_VECTOR} @@ query.sq OR c.id = ${chatId})` : `${CHAT_VECTOR} @@ query.sq`;
  const chatRank = chatId
    ? `CASE WHEN c.id = ${chatId} THEN 1000::real ELSE ts_rank(${CHAT_VECTOR}, query.sq) END`
    : `ts_rank(${CHAT_VECTOR}, query.sq)`;
  const chatWhere = [`c.account_id = ${account}`, chatMatch, ...chatConditions, ...window('c.last_message_at')];
  const afterCondition = after
    ? `WHERE (h.rank, h.at, coalesce(h.message_id, h.chat_id)) < (${param(after.rank)}::real, ${param(after.at)}::timestamptz, ${param(after.id)}::uuid)`
    : '';
  const chatHeadline = `ts_headline('simple'::regconfig, ${SAFE_TEXT(`c.dialog_name || ' · ' || coalesce(c.email, '')`)}, query.sq, ${MARKS} || ', HighlightAll=true')`;
  return `WITH query AS (
    SELECT coalesce((SELECT string_agg('(' || tq::text || ')', ' | ')
                     FROM (SELECT to_tsquery(cfg, ${words}) AS tq
                           FROM (SELECT search_config AS cfg FROM channels WHERE account_id = ${account}
                                 UNION SELECT 'simple'::regconfig) configs) parsed
                     WHERE numnode(tq) > 0), '')::tsquery AS q,
           to_tsquery('simple'::regconfig, ${words}) AS sq),
  hits AS (
    ${written('messages', 'm')}
    UNION ALL
    ${written('chat_notes', 'n')}
    UNION ALL
    SELECT 'c', NULL::uuid, c.id, c.last_message_at, ${chatRank}
    FROM query CROSS JOIN chats c WHERE ${chatWhere.join(' AND ')}),
  page AS (
    SELECT * FROM hits h ${afterCondition}
    ORDER BY h.rank DESC, h.at DESC, coalesce(h.message_id, h.chat_id) DESC LIMIT $3)
  SELECT p.kind, p.message_id, p.chat_id, p.at, p.rank, c.dialog_name AS chat_name, c.channel_kind,
    CASE p.kind
      WHEN 'm' THEN ts_headline(coalesce(m.search_config, 'simple'::regconfig), ${SAFE_TEXT('m.text')}, query.q, ${MARKS})
      WHEN 'n' THEN ts_headline(coalesce(n.search_config, 'simple'::regconfig), ${SAFE_TEXT('n.text')}, query.q, ${MARKS})
      ${chatId ? `WHEN 'c' THEN CASE WHEN c.id = ${chatId} THEN chr(57344) || c.id::text || chr(57345) ELSE ${chatHeadline} END` : `ELSE ${chatHeadline}`}
    END AS headline
  FROM page p CROSS JOIN query
  JOIN chats c ON c.id = p.chat_id
  LEFT JOIN messages m ON p.kind = 'm' AND m.id = p.message_id
  LEFT JOIN chat_notes n ON p.kind = 'n' AND n.id = p.message_id
  ORDER BY p.rank DESC, p.at DESC, coalesce(p.message_id, p.chat_id) DESC`;
}


export function createSearchStore(db: Executor) {
  return {
    /** One page of hits (`limit` rows at most), best first. */
    async search(filter: SearchFilter, after: SearchAfter | undefined, limit: number): Promise<SearchRow[]> {
      const values: unknown[] = [filter.accountId, filter.tsquery, limit];
      const text = searchText(filter, after, values);
      return preparedRows<SearchRow>(db, { name: '', text, values });
    },
  };
}

export type SearchStore = ReturnType<typeof createSearchStore>;
