// SQL of replays and their items (issue #37). Every read and write is scoped by the account: another account's
// replay is indistinguishable from a missing one. Items are written once: a result is stored only while the item
// has no verdict, so a replay job taken over after a crash never writes an item twice.
import { sql } from 'drizzle-orm';
import type { ReplayAnsweredBy, ReplayMark, ReplayVerdict } from '@parley/contracts';
import { queryRows, type Executor } from '../db/client.ts';
import { newId } from '../lib/ids.ts';
import type { ReplayRow } from './replay-file.ts';

export interface ReplayRecord {
  id: string;
  accountId: string;
  channelId: string;
  status: 'running' | 'done' | 'failed';
  total: number;
  done: number;
  agrees: number;
  differs: number;
  clarified: number;
  handedOff: number;
  fellBack: number;
  /** Marks on answered items (`agrees`, `differs`). */
  markedRight: number;
  markedWrong: number;
  /** Marks on the others (`clarified`, `handed_off`, `fell_back`), counted apart. */
  unansweredRight: number;
  unansweredWrong: number;
}

export interface ReplayItemRecord {
  id: string;
  position: number;
  question: string;
  teamAnswer: string | null;
  answeredBy: ReplayAnsweredBy;
  agentReply: string | null;
  verdict: ReplayVerdict | null;
  mark: ReplayMark | null;
  wouldCall: string[];
}

export interface ReplayResult {
  id: string;
  agentReply: string | null;
  verdict: ReplayVerdict;
  /** The actions the agent would have called but did not. */
  wouldCall: string[];
}

/** A past customer question of a channel with its past answer (a member's, else the agent's: docs/decisions.md, "Replay pairing"). */
export interface HistoryQuestion {
  question: string;
  teamAnswer: string;
  answeredBy: ReplayAnsweredBy;
  chatId: string;
}

/** Rows inserted per statement (5 parameters each, far under PostgreSQL's 65,535). */
const INSERT_BATCH = 1_000;

const itemColumns = sql`id, position, question, team_answer AS "teamAnswer", answered_by AS "answeredBy", agent_reply AS "agentReply", verdict, mark, would_call AS "wouldCall"`;

export function createReplaysStore(db: Executor) {
  return {
    /** A replay with its questions, in the caller's transaction. */
    async insert(
      replay: { id: string; accountId: string; channelId: string; source: 'history' | 'file'; callReadActions: boolean; createdAt: Date },
      rows: readonly ReplayRow[],
    ) {
      await db.execute(sql`
        INSERT INTO replays (id, account_id, channel_id, source, status, total, call_read_actions, created_at)
        VALUES (${replay.id}::uuid, ${replay.accountId}::uuid, ${replay.channelId}, ${replay.source}, ${rows.length === 0 ? 'done' : 'running'},
                ${rows.length}, ${replay.callReadActions}, ${replay.createdAt.toISOString()}::timestamptz)`);
      for (let start = 0; start < rows.length; start += INSERT_BATCH) {
        const values = rows
          .slice(start, start + INSERT_BATCH)
          .map((row, i) => sql`(${newId()}::uuid, ${replay.id}::uuid, ${start + i + 1}::int, ${row.question}::text, ${row.teamAnswer}::text, ${row.answeredBy ?? 'team'}::text, ${row.conversationId}::text)`,
          );
        await db.execute(sql`INSERT INTO replay_items (id, replay_id, position, question, team_answer, answered_by, conversation_id) VALUES ${sql.join(values, sql`, `)}`);
      }
    },

    /** The account's replay with its counts (one scan of its items). */
    async find(accountId: string, replayId: string): Promise<ReplayRecord | undefined> {
      const [row] = await queryRows<ReplayRecord>(
        db,
        sql`SELECT r.id, r.account_id AS "accountId", r.channel_id AS "channelId", r.status, r.total,
                   count(i.verdict)::int AS done,
                   count(*) FILTER (WHERE i.verdict = 'agrees')::int AS agrees,
                   count(*) FILTER (WHERE i.verdict = 'differs')::int AS differs,
                   count(*) FILTER (WHERE i.verdict = 'clarified')::int AS clarified,
                   count(*) FILTER (WHERE i.verdict = 'handed_off')::int AS "handedOff",
                   count(*) FILTER (WHERE i.verdict = 'fell_back')::int AS "fellBack",
                   count(*) FILTER (WHERE i.mark = 'right' AND i.verdict IN ('agrees', 'differs'))::int AS "markedRight",
                   count(*) FILTER (WHERE i.mark = 'wrong' AND i.verdict IN ('agrees', 'differs'))::int AS "markedWrong",
                   count(*) FILTER (WHERE i.mark = 'right' AND i.verdict NOT IN ('agrees', 'differs'))::int AS "unansweredRight",
                   count(*) FILTER (WHERE i.mark = 'wrong' AND i.verdict NOT IN ('agrees', 'differs'))::int AS "unansweredWrong"
            FROM replays r LEFT JOIN replay_items i ON i.replay_id = r.id
            WHERE r.id = ${replayId}::uuid AND r.account_id = ${accountId}::uuid
            GROUP BY r.id`,
      );
      return row;
    },

    /** The replay's state for its job (no account: the job's payload names it). */
    async state(replayId: string): Promise<{ accountId: string; channelId: string; status: string; callReadActions: boolean } | undefined> {
      const [row] = await queryRows<{ accountId: string; channelId: string; status: string; callReadActions: boolean }>(
        db,
        sql`SELECT account_id AS "accountId", channel_id AS "channelId", status, call_read_actions AS "callReadActions"
            FROM replays WHERE id = ${replayId}::uuid`,
      );
      return row;
    },

    /** The next questions not replayed yet, in order. */
    pending(replayId: string, limit: number): Promise<ReplayItemRecord[]> {
      return queryRows<ReplayItemRecord>(
        db,
        sql`SELECT ${itemColumns} FROM replay_items WHERE replay_id = ${replayId}::uuid AND verdict IS NULL ORDER BY position LIMIT ${limit}`,
      );
    },

    /** Stores a batch's replies and verdicts in one statement; an item that has one already keeps it. */
    async writeResults(replayId: string, results: readonly ReplayResult[]): Promise<void> {
      if (results.length === 0) return;
      const values = results.map((r) => sql`(${r.id}::uuid, ${r.agentReply}::text, ${r.verdict}::text, ${JSON.stringify(r.wouldCall)}::jsonb)`);
      await db.execute(sql`
        UPDATE replay_items i SET agent_reply = v.reply, verdict = v.verdict,
               would_call = array(SELECT jsonb_array_elements_text(v.would_call))
        FROM (VALUES ${sql.join(values, sql`, `)}) AS v(id, reply, verdict, would_call)
        WHERE i.id = v.id AND i.replay_id = ${replayId}::uuid AND i.verdict IS NULL`);
    },

    async finish(replayId: string, status: 'done' | 'failed', at: Date, error: string | null = null): Promise<void> {
      await db.execute(sql`
        UPDATE replays SET status = ${status}, error = ${error}, finished_at = ${at.toISOString()}::timestamptz
        WHERE id = ${replayId}::uuid AND status = 'running'`);
    },

    /** A page of the account's replay's items after `afterPosition`, in order; undefined when the replay is not the account's. */
    async listItems(
      accountId: string,
      replayId: string,
      filter: { verdict?: ReplayVerdict; limit: number; afterPosition: number },
    ): Promise<ReplayItemRecord[] | undefined> {
      const owned = await queryRows(db, sql`SELECT 1 FROM replays WHERE id = ${replayId}::uuid AND account_id = ${accountId}::uuid`);
      if (owned.length === 0) return undefined;
      const verdict = filter.verdict ? sql`AND verdict = ${filter.verdict}` : sql``;
      return queryRows<ReplayItemRecord>(
        db,
        sql`SELECT ${itemColumns} FROM replay_items
            WHERE replay_id = ${replayId}::uuid AND position > ${filter.afterPosition} ${verdict}
            ORDER BY position LIMIT ${filter.limit}`,
      );
    },

    async setMark(accountId: string, replayId: string, itemId: string, mark: ReplayMark | null): Promise<ReplayItemRecord | undefined> {
      const [row] = await queryRows<ReplayItemRecord>(
        db,
        sql`UPDATE replay_items i SET mark = ${mark}::text
            FROM replays r
            WHERE i.id = ${itemId}::uuid AND i.replay_id = ${replayId}::uuid AND r.id = i.replay_id AND r.account_id = ${accountId}::uuid
            RETURNING i.id, i.position, i.question, i.team_answer AS "teamAnswer", i.answered_by AS "answeredBy", i.agent_reply AS "agentReply", i.verdict, i.mark,
                      i.would_call AS "wouldCall"`,
      );
      return row;
    },

    /**
     * The channel's customer questions since `since`, oldest first, each with its past answer (docs/decisions.md,
     * "Replay pairing"): between the question and the customer's next message in its chat, the first member reply,
     * else the agent's first reply that answered (no fallback, handoff, clarification, greeting or action question);
     * a question with neither is left out. At most `limit`, the newest kept.
     */
    historyQuestions(accountId: string, channelId: string, since: Date, limit: number): Promise<HistoryQuestion[]> {
      return queryRows<HistoryQuestion>(
        db,
        sql`SELECT * FROM (
              SELECT q.text AS question, a.text AS "teamAnswer", a.by AS "answeredBy", q.chat_id AS "chatId", q.created_at, q.id
              FROM chats c
              JOIN messages q ON q.chat_id = c.id AND q.origin = 'customer' AND q.created_at >= ${since.toISOString()}::timestamptz
              LEFT JOIN LATERAL (
                SELECT m.created_at, m.id FROM messages m
                WHERE m.chat_id = q.chat_id AND m.origin = 'customer' AND (m.created_at, m.id) > (q.created_at, q.id)
                ORDER BY m.created_at, m.id LIMIT 1
              ) n ON true
              JOIN LATERAL (
                SELECT m.text, CASE WHEN m.origin = 'agent' THEN 'agent' ELSE 'team' END AS by FROM messages m
                WHERE m.chat_id = q.chat_id AND (m.created_at, m.id) > (q.created_at, q.id)
                  AND (n.id IS NULL OR (m.created_at, m.id) < (n.created_at, n.id))
                  AND (m.origin IN ('team', 'api')
                       OR (m.origin = 'agent' AND NOT m.fallback AND NOT m.handoff AND NOT m.greeting AND m.choices IS NULL AND m.action_pending IS NULL))
                  AND btrim(m.text) <> ''
                ORDER BY m.origin = 'agent', m.created_at, m.id LIMIT 1
              ) a ON true
              WHERE c.account_id = ${accountId}::uuid AND c.channel_id = ${channelId}
                AND q.text !~ '^[[:space:][:punct:][:digit:]]*$'
              ORDER BY q.created_at DESC, q.id DESC LIMIT ${limit}
            ) newest ORDER BY created_at, id`,
      );
    },
  };
}

export type ReplaysStore = ReturnType<typeof createReplaysStore>;
