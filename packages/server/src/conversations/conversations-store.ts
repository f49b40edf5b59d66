// SQL of conversations (migrations 0027, 0029): the summary's reads (the daily rollup conversation_days, days ×
// channels rows whatever the number of conversations, and the window's open conversations), the ledger (a range scan
// of an account's conversations by start, on conversations_account_started_idx or its per-channel twin), the sweep's
// ends by quiet time and settling of `durable`, CSAT, the account's resolution time, and a bulk insert for
// benchmarks and seeding.
import type { LedgerFigure } from '@parley/contracts';
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.ts';

export interface ReportScope {
  accountId: string;
  /** Started at or after (inclusive). */
  from: Date;
  /** Started before (exclusive). */
  until: Date;
  channelId?: string;
  memberId?: string;
}

/** A row of the daily rollup (conversation_days): the ended conversations of a day, channel and member. */
export interface RollupRow {
  day: string;
  channelId: string;
  memberId: string;
  ended: number;
  resolvedByAgent: number;
  resolvedByAgentConfirmed: number;
  resolvedByAgentDurable: number;
  resolvedByTeam: number;
  handedOff: number;
  unanswered: number;
  endedHandedOff: number;
  answeredAfterChoice: number;
  resolvedWithAction: number;
  reasonModel: number;
  reasonCustomerRequest: number;
  reasonFallbacks: number;
  csatCount: number;
  csatSum: number;
  csatAgentCount: number;
  csatAgentSum: number;
  csatTeamCount: number;
  csatTeamSum: number;
  /** The histograms as `<first bucket>:<counts>` (duration-histogram.ts), null when empty; the per-member rows read only the team's. */
  agentHist: string | null;
  teamHist: string | null;
  resolutionHist: string | null;
}

/** The window's open conversations, counted by the database (the rollup counts ended ones). */
export interface OpenFigures {
  /** Per UTC day of start and channel. */
  days: {
    day: string;
    channelId: string;
    conversations: number;
    answeredAfterChoice: number;
    reasonModel: number;
    reasonCustomerRequest: number;
    reasonFallbacks: number;
  }[];
  /** How many have a first agent (team) response in each bucket (conversation_bucket). */
  agentBuckets: { bucket: number; count: number }[];
  teamBuckets: { bucket: number; count: number }[];
  /** Per member who replied (only the filtered one with a member filter) and bucket of the first team response. */
  members: { memberId: string; bucket: number | null; count: number }[];
}

/** The member_id of the rollup's rows that count every conversation. */
export const EVERY_CONVERSATION = '00000000-0000-0000-0000-000000000000';

export interface LedgerRow {
  id: string;
  chatId: string;
  channelId: string;
  customerName: string;
  startedAt: Date;
  endedAt: Date | null;
  outcome: string | null;
  confirmed: boolean;
  durable: boolean | null;
  handoffReason: string | null;
  firstAgentResponseSeconds: number | null;
  firstTeamResponseSeconds: number | null;
  assigneeId: string | null;
  assigneeName: string | null;
  csat: number | null;
  messages: number;
  /** While open: what has happened so far (contracts' OPEN_STATES); null once ended. */
  state: string | null;
  /** While open: when the account's quiet time ends it if the customer writes no more; null once ended. */
  endsAt: Date | null;
}

/**
 * An open conversation's state (contracts' OPEN_STATES) from its counters and its chat: the team has it when the chat
 * needs a person, it was handed off with no member reply, or the customer wrote last to a chat whose agent is paused
 * or where a member replied; a reply last waits for the customer (a member's, or the agent's greeting, fallback or
 * menu), unless the agent's answer is what happened (answered_by_agent); nothing answered yet is new.
 */
const OPEN_STATE = sql`case when c.ended_at is not null then null
  when ch.needs_human or (c.handed_off_at is not null and not c.team_replied) then 'waiting_for_team'
  when c.last_customer_message_at >= c.last_message_at then
    case when ch.paused or c.team_replied then 'waiting_for_team' when c.agent_answers > 0 then 'answered_by_agent' else 'new' end
  when c.team_replied then 'waiting_for_customer'
  when c.agent_answers > 0 then 'answered_by_agent'
  else 'waiting_for_customer' end`;

/** A conversation ended by the sweep (the widget and messengers then ask for a rating). */
export interface EndedConversation {
  id: string;
  accountId: string;
  chatId: string;
  channelId: string;
  outcome: string;
}

/** A row for `insertMany` (benchmarks, seeding): an ended or open conversation as the triggers would have kept it. */
export interface ConversationSeed {
  id: string;
  accountId: string;
  chatId: string;
  channelId: string;
  startedAt: Date;
  endedAt: Date | null;
  outcome: 'resolved_by_agent' | 'resolved_by_team' | 'handed_off' | 'unanswered' | null;
  confirmed?: boolean;
  durable?: boolean | null;
  messages: number;
  agentAnswers?: number;
  answeredAfterChoice?: number;
  handedOffAt?: Date | null;
  handoffReason?: 'model' | 'customer_request' | 'fallbacks' | null;
  memberIds?: string[];
  firstAgentResponseSeconds?: number | null;
  firstTeamResponseSeconds?: number | null;
  assigneeId?: string | null;
  csatRating?: number | null;
}

/** The reports' filter: the account's conversations started in [from, until), of a channel, a member replied in. */
function scopeWhere(scope: ReportScope, alias = 'c'): SQL {
  const c = sql.raw(alias);
  return sql`${c}.account_id = ${scope.accountId} and ${c}.started_at >= ${scope.from.toISOString()}::timestamptz
    and ${c}.started_at < ${scope.until.toISOString()}::timestamptz
    ${scope.channelId !== undefined ? sql`and ${c}.channel_id = ${scope.channelId}` : sql``}
    ${scope.memberId !== undefined ? sql`and ${scope.memberId}::uuid = any(${c}.member_ids)` : sql``}`;
}

/** The conversations a figure of the summary counts (the ledger's `only`), as the rollup counts them. */
const FIGURES: Record<LedgerFigure, SQL> = {
  confirmed: sql`c.confirmed`,
  durable: sql`c.durable is true`,
  handed_off: sql`c.outcome is not null and c.handed_off_at is not null`,
  model: sql`c.handoff_reason = 'model'`,
  customer_request: sql`c.handoff_reason = 'customer_request'`,
  fallbacks: sql`c.handoff_reason = 'fallbacks'`,
  rated: sql`c.csat_rating is not null`,
  agent_response: sql`c.first_agent_response_seconds is not null`,
  team_response: sql`c.first_team_response_seconds is not null`,
  ended: sql`c.outcome is not null`,
  after_choice: sql`c.answered_after_choice > 0`,
  with_action: sql`c.outcome = 'resolved_by_agent' and c.action_answers > 0`,
};

/** A stored histogram as `<first bucket>:<counts>` (`49:1,0,3`), null when empty (duration-histogram.ts reads it). */
const histText = (column: SQL): SQL => sql`array_lower(${column}, 1) || ':' || array_to_string(${column}, ',', '0')`;

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export function createConversationsStore(db: Executor) {
  /** conversation_days rows of the scope's days and channel whose member is `member` (histograms as text: histText). */
  async function rollupRows(scope: ReportScope, member: SQL, withAll: boolean): Promise<RollupRow[]> {
    const rows = await queryRows<Record<string, unknown>>(
      db,
      sql`select to_char(d.day, 'YYYY-MM-DD') as day, d.channel_id as "channelId", d.member_id as "memberId", d.ended,
                 d.resolved_by_agent as "resolvedByAgent", d.resolved_by_agent_confirmed as "resolvedByAgentConfirmed",
                 d.resolved_by_agent_durable as "resolvedByAgentDurable", d.resolved_by_team as "resolvedByTeam",
                 d.handed_off as "handedOff", d.unanswered, d.ended_handed_off as "endedHandedOff",
                 d.answered_after_choice as "answeredAfterChoice", d.resolved_with_action as "resolvedWithAction", d.reason_model as "reasonModel",
                 d.reason_customer_request as "reasonCustomerRequest", d.reason_fallbacks as "reasonFallbacks",
                 d.csat_count as "csatCount", d.csat_sum as "csatSum", d.csat_agent_count as "csatAgentCount",
                 d.csat_agent_sum as "csatAgentSum", d.csat_team_count as "csatTeamCount", d.csat_team_sum as "csatTeamSum",
                 ${withAll ? histText(sql`d.agent_hist`) : sql`null`} as "agentHist", ${histText(sql`d.team_hist`)} as "teamHist",
                 ${withAll ? histText(sql`d.resolution_hist`) : sql`null`} as "resolutionHist"
          from conversation_days d
          where d.account_id = ${scope.accountId} and ${member}
            and d.day >= ${scope.from.toISOString().slice(0, 10)}::date and d.day < ${scope.until.toISOString().slice(0, 10)}::date
            ${scope.channelId !== undefined ? sql`and d.channel_id = ${scope.channelId}` : sql``}
            and d.ended > 0`,
    );
    return rows.map((row) => {
      const out = {} as Record<string, unknown>;
      for (const [key, value] of Object.entries(row)) {
        out[key] = typeof value === 'number' || value === null || key === 'day' || key.endsWith('Id') || key.endsWith('Hist') ? value : Number(value);
      }
      return out as unknown as RollupRow;
    });
  }

  return {
    /**
     * The rollup's rows of the window: those of every conversation, or those of `scope.memberId` (what a member filter
     * keeps), per day and channel. At most days × channels rows, whatever the number of conversations.
     */
    async rollup(scope: ReportScope): Promise<RollupRow[]> {
      return rollupRows(scope, sql`d.member_id = ${scope.memberId ?? EVERY_CONVERSATION}::uuid`, true);
    },

    /** The rollup's per-member rows of the window (the members who replied in its conversations). */
    async memberRollup(scope: ReportScope): Promise<RollupRow[]> {
      return rollupRows(
        scope,
        scope.memberId !== undefined ? sql`d.member_id = ${scope.memberId}::uuid` : sql`d.member_id <> ${EVERY_CONVERSATION}::uuid`,
        false,
      );
    },

    /**
     * The window's open conversations (the rollup counts ended ones) through conversations_account_open_idx, counted
     * by the database: per day and channel, per bucket of the first responses, per member.
     */
    async open(scope: ReportScope): Promise<OpenFigures> {
      const grouped = await queryRows<{
        kind: 'day' | 'agent' | 'team';
        day: string | null;
        channelId: string | null;
        agentBucket: number | null;
        teamBucket: number | null;
        conversations: number;
        answeredAfterChoice: number;
        reasonModel: number;
        reasonCustomerRequest: number;
        reasonFallbacks: number;
      }>(
        db,
        sql`with o as (
              select to_char((c.started_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, c.channel_id,
                     conversation_bucket(c.first_agent_response_seconds) as agent,
                     conversation_bucket(c.first_team_response_seconds) as team, c.answered_after_choice, c.handoff_reason
              from conversations c where c.ended_at is null and ${scopeWhere(scope)})
            select case when grouping(day, channel_id) = 0 then 'day' when grouping(agent) = 0 then 'agent' else 'team' end as kind,
                   day, channel_id as "channelId", agent as "agentBucket", team as "teamBucket", count(*)::int as conversations,
                   coalesce(sum(answered_after_choice), 0)::int as "answeredAfterChoice",
                   count(*) filter (where handoff_reason = 'model')::int as "reasonModel",
                   count(*) filter (where handoff_reason = 'customer_request')::int as "reasonCustomerRequest",
                   count(*) filter (where handoff_reason = 'fallbacks')::int as "reasonFallbacks"
            from o group by grouping sets ((day, channel_id), (agent), (team))`,
      );
      const members = await queryRows<{ memberId: string; bucket: number | null; count: number }>(
        db,
        sql`select m::text as "memberId", conversation_bucket(c.first_team_response_seconds) as bucket, count(*)::int as count
            from conversations c cross join lateral unnest(c.member_ids) as m
            where c.ended_at is null and ${scopeWhere(scope)}
              ${scope.memberId !== undefined ? sql`and m = ${scope.memberId}::uuid` : sql``}
            group by 1, 2`,
      );
      const buckets = (kind: 'agent' | 'team') =>
        grouped.flatMap((row) => {
          const bucket = kind === 'agent' ? row.agentBucket : row.teamBucket;
          return row.kind === kind && bucket !== null ? [{ bucket, count: row.conversations }] : [];
        });
      return {
        days: grouped.flatMap(({ kind, day, channelId, conversations, answeredAfterChoice, reasonModel, reasonCustomerRequest, reasonFallbacks }) =>
          kind === 'day' && day !== null && channelId !== null
            ? [{ day, channelId, conversations, answeredAfterChoice, reasonModel, reasonCustomerRequest, reasonFallbacks }]
            : [],
        ),
        agentBuckets: buckets('agent'),
        teamBuckets: buckets('team'),
        members,
      };
    },

    /** The names of an account's channels among `ids`. */
    async channelNames(accountId: string, ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await queryRows<{ id: string; name: string }>(
        db,
        sql`select id, name from channels where account_id = ${accountId} and id = any(${sql.param([...ids])}::text[])`,
      );
      return new Map(rows.map((row) => [row.id, row.name]));
    },

    /** The names (else e-mails) of an account's members among `ids`; a removed member is absent. */
    async memberNames(accountId: string, ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await queryRows<{ id: string; name: string }>(
        db,
        sql`select id, coalesce(name, email) as name from members
            where account_id = ${accountId} and id = any(${sql.param([...ids])}::uuid[])`,
      );
      return new Map(rows.map((row) => [row.id, row.name]));
    },

    /** A page of the ledger, newest start first, after the (startedAt, id) of `after`. */
    async ledger(
      scope: ReportScope,
      options: { outcome?: string; only?: LedgerFigure; after?: { startedAt: Date; id: string }; limit: number },
    ): Promise<LedgerRow[]> {
      const outcome =
        options.outcome === undefined ? sql`` : options.outcome === 'open' ? sql`and c.outcome is null` : sql`and c.outcome = ${options.outcome}`;
      const only = options.only === undefined ? sql`` : sql`and ${FIGURES[options.only]}`;
      const after = options.after
        ? sql`and (c.started_at, c.id) < (${options.after.startedAt.toISOString()}::timestamptz, ${options.after.id}::uuid)`
        : sql``;
      const rows = await queryRows<Record<string, unknown>>(
        db,
        sql`select c.id, c.chat_id as "chatId", c.channel_id as "channelId", ch.dialog_name as "customerName",
                   c.started_at as "startedAt", c.ended_at as "endedAt", c.outcome, c.confirmed, c.durable,
                   c.handoff_reason as "handoffReason", c.first_agent_response_seconds as "firstAgentResponseSeconds",
                   c.first_team_response_seconds as "firstTeamResponseSeconds", c.assignee_id as "assigneeId",
                   coalesce(m.name, m.email) as "assigneeName", c.csat_rating as csat, c.messages,
                   ${OPEN_STATE} as state,
                   case when c.ended_at is null
                        then c.last_customer_message_at + make_interval(mins => a.resolution_quiet_minutes) end as "endsAt"
            from conversations c join chats ch on ch.id = c.chat_id
            join accounts a on a.id = c.account_id
            left join members m on m.id = c.assignee_id
            where ${scopeWhere(scope)} ${outcome} ${only} ${after}
            order by c.started_at desc, c.id desc
            limit ${options.limit}`,
      );
      return rows.map((row) => ({
        id: String(row.id),
        chatId: String(row.chatId),
        channelId: String(row.channelId),
        customerName: String(row.customerName ?? ''),
        startedAt: new Date(row.startedAt as string),
        endedAt: row.endedAt === null ? null : new Date(row.endedAt as string),
        outcome: (row.outcome as string | null) ?? null,
        confirmed: Boolean(row.confirmed),
        durable: (row.durable as boolean | null) ?? null,
        handoffReason: (row.handoffReason as string | null) ?? null,
        firstAgentResponseSeconds: num(row.firstAgentResponseSeconds),
        firstTeamResponseSeconds: num(row.firstTeamResponseSeconds),
        assigneeId: (row.assigneeId as string | null) ?? null,
        assigneeName: (row.assigneeName as string | null) ?? null,
        csat: num(row.csat),
        messages: Number(row.messages),
        state: (row.state as string | null) ?? null,
        endsAt: row.endsAt === null || row.endsAt === undefined ? null : new Date(row.endsAt as string),
      }));
    },

    /**
     * Ends at most `batch` open conversations quiet since before their account's resolution time at `now` (skipping
     * rows another transaction holds: they are taken next time) and counts their outcomes.
     */
    async endQuiet(now: Date, batch: number): Promise<EndedConversation[]> {
      return queryRows<EndedConversation>(
        db,
        sql`with due as (
              select c.id from conversations c join accounts a on a.id = c.account_id
              where c.ended_at is null and c.last_customer_message_at < ${now.toISOString()}::timestamptz - interval '1 minute'
                and c.last_customer_message_at < ${now.toISOString()}::timestamptz - make_interval(mins => a.resolution_quiet_minutes)
              limit ${batch}
              for update of c skip locked),
            ended as (
              update conversations c set ended_at = c.last_message_at, ended_by = 'quiet',
                     outcome = conversation_outcome(c.team_replied, c.handed_off_at, c.agent_answers)
              from due where c.id = due.id and c.ended_at is null
              returning c.id, c.account_id, c.chat_id, c.channel_id, c.outcome),
            counted as (
              insert into conversation_outcome_totals as t (outcome, shard, total)
              select outcome, pg_backend_pid() % 16, count(*) from ended group by outcome
              on conflict (outcome, shard) do update set total = t.total + excluded.total
              returning 1)
            select e.id, e.account_id as "accountId", e.chat_id as "chatId", e.channel_id as "channelId", e.outcome,
                   -- A widget chat's frames hear of it (CSAT): the widget's live signal (events/typing.ts).
                   case when ch.channel_kind = 'widget'
                        then pg_notify('parley_widget_typing', json_build_object('c', ch.channel_id, 'x', ch.external_chat_id, 'e', true)::text)
                   end as notified
            from ended e join chats ch on ch.id = e.chat_id`,
      );
    },

    /**
     * At most `batch` ended conversations 7 days old with no new conversation since become durable (a backlog is
     * settled in short statements, never one that holds the database). How many.
     */
    async settleDurable(now: Date, batch: number): Promise<number> {
      const rows = await queryRows<{ id: string }>(
        db,
        sql`with due as (
              select id from conversations
              where ended_at is not null and durable is null and ended_at <= ${now.toISOString()}::timestamptz - interval '7 days'
              limit ${batch}
              for update skip locked)
            update conversations c set durable = true from due where c.id = due.id and c.durable is null
            returning c.id`,
      );
      return rows.length;
    },

    /** Ended conversations by outcome, every process's (parley_conversations_total). */
    async outcomeTotals(): Promise<{ outcome: string; total: number }[]> {
      const rows = await queryRows<{ outcome: string; total: string | number }>(
        db,
        sql`select outcome, sum(total)::bigint as total from conversation_outcome_totals group by outcome`,
      );
      return rows.map((row) => ({ outcome: row.outcome, total: Number(row.total) }));
    },

    /** The chat's latest conversation, when it has ended (none while one is open). */
    async latestEnded(chatId: string): Promise<{ id: string; endedAt: Date; csatRating: number | null } | undefined> {
      const [row] = await queryRows<{ id: string; endedAt: string | null; csatRating: number | null }>(
        db,
        sql`select id, ended_at as "endedAt", csat_rating as "csatRating" from conversations
            where chat_id = ${chatId} order by started_at desc limit 1`,
      );
      return row && row.endedAt !== null ? { id: row.id, endedAt: new Date(row.endedAt), csatRating: row.csatRating } : undefined;
    },

    /** The customer's rating of an ended conversation of the chat, once: whether it was stored. 4 or 5 confirms an agent's resolution. */
    async rate(chatId: string, conversationId: string, rating: number, comment: string | null, at: Date): Promise<'rated' | 'already' | 'none'> {
      const [row] = await queryRows<{ rated: boolean }>(
        db,
        sql`with target as (select id, csat_rating from conversations
                            where id = ${conversationId}::uuid and chat_id = ${chatId}::uuid and ended_at is not null),
            rated as (update conversations c set csat_rating = ${rating}, csat_comment = ${comment}, csat_at = ${at.toISOString()}::timestamptz,
                             confirmed = (c.outcome = 'resolved_by_agent' and ${rating} >= 4)
                      from target where c.id = target.id and target.csat_rating is null
                      returning c.id)
            select exists (select 1 from rated) as rated, exists (select 1 from target) as found`,
      );
      const result = row as { rated: boolean; found?: boolean } | undefined;
      return result?.rated ? 'rated' : result?.found ? 'already' : 'none';
    },

    /**
     * Messenger CSAT: claims at most `batch` conversations of messenger chats that ended less than `recentMs` ago
     * (a quiet end counted from when the resolution time ran out),
     * are their chat's latest, were never asked and are unrated (skipping rows another transaction holds), and marks
     * them asked at `now`. Run in the transaction that queues the question.
     */
    async claimCsatQuestions(now: Date, recentMs: number, batch: number): Promise<{ id: string; accountId: string; chatId: string; channelId: string }[]> {
      return queryRows(
        db,
        sql`with due as (
              select c.id from conversations c join chats ch on ch.id = c.chat_id join accounts a on a.id = c.account_id
              where c.ended_at is not null and c.csat_asked_at is null and c.csat_rating is null
                -- Recent by when the end took effect: a quiet end when the resolution time ran out after the last
                -- customer message (its ended_at is the last message's time, a day or more before).
                and greatest(c.ended_at, case when c.ended_by = 'quiet'
                      then c.last_customer_message_at + make_interval(mins => a.resolution_quiet_minutes) end)
                    > ${now.toISOString()}::timestamptz - make_interval(secs => ${recentMs / 1000})
                and ch.channel_kind in ('telegram', 'whatsapp', 'facebook', 'instagram', 'viber') and not ch.banned
                and not exists (select 1 from conversations n where n.chat_id = c.chat_id and n.started_at > c.started_at)
              order by c.ended_at
              limit ${batch}
              for update of c skip locked)
            update conversations c set csat_asked_at = ${now.toISOString()}::timestamptz from due
            where c.id = due.id and c.csat_asked_at is null
            returning c.id, c.account_id as "accountId", c.chat_id as "chatId", c.channel_id as "channelId"`,
      );
    },

    /**
     * Messenger CSAT: the conversation a customer's 1–5 in this chat rates, locked: the chat's latest conversation
     * when it has ended, was asked less than `recentMs` before `now` and is unrated (any other customer message since
     * the question started a newer conversation).
     */
    async askedForRating(channelId: string, externalChatId: string, now: Date, recentMs: number): Promise<{ id: string; accountId: string; chatId: string } | undefined> {
      const [row] = await queryRows<{ id: string; accountId: string; chatId: string; endedAt: string | null; askedAt: string | null; rating: number | null }>(
        db,
        sql`select c.id, c.account_id as "accountId", c.chat_id as "chatId", c.ended_at as "endedAt",
                   c.csat_asked_at as "askedAt", c.csat_rating as rating
            from chats ch join conversations c on c.chat_id = ch.id
            where ch.channel_id = ${channelId} and ch.external_chat_id = ${externalChatId} and not ch.banned
            order by c.started_at desc limit 1
            for update of c`,
      );
      if (!row || row.endedAt === null || row.askedAt === null || row.rating !== null) return undefined;
      if (now.getTime() - new Date(row.askedAt).getTime() > recentMs) return undefined;
      return { id: row.id, accountId: row.accountId, chatId: row.chatId };
    },

    /** Marks that the customer was asked to rate the conversation (messengers: their next 1–5 is the rating). */
    async markAsked(conversationId: string, at: Date): Promise<void> {
      await db.execute(sql`update conversations set csat_asked_at = ${at.toISOString()}::timestamptz where id = ${conversationId}::uuid`);
    },

    async quietMinutes(accountId: string): Promise<number | undefined> {
      const [row] = await queryRows<{ minutes: number }>(
        db,
        sql`select resolution_quiet_minutes as minutes from accounts where id = ${accountId}`,
      );
      return row?.minutes;
    },

    async retentionDays(accountId: string): Promise<number | null> {
      const [row] = await queryRows<{ days: number | null }>(db, sql`select retention_days as days from accounts where id = ${accountId}`);
      return row?.days ?? null;
    },

    async setRetentionDays(accountId: string, days: number | null): Promise<void> {
      await db.execute(sql`update accounts set retention_days = ${days}, updated_at = now() where id = ${accountId}`);
    },

    /** Whether the account requires two-factor sign-in of every member (issue #45). */
    async requireTwoFactor(accountId: string): Promise<boolean> {
      const [row] = await queryRows<{ required: boolean }>(db, sql`select require_two_factor as required from accounts where id = ${accountId}`);
      return row?.required ?? false;
    },

    async setRequireTwoFactor(accountId: string, required: boolean): Promise<void> {
      await db.execute(sql`update accounts set require_two_factor = ${required}, updated_at = now() where id = ${accountId}`);
    },

    async setQuietMinutes(accountId: string, minutes: number): Promise<void> {
      await db.execute(sql`update accounts set resolution_quiet_minutes = ${minutes}, updated_at = now() where id = ${accountId}`);
    },

    /**
     * Inserts conversations as they are kept (benchmarks, seeding): one statement per call, rows given as one JSON
     * array (thousands per call are fine). Outcome totals are not counted.
     */
    async insertMany(rows: readonly ConversationSeed[]): Promise<void> {
      if (rows.length === 0) return;
      const json = JSON.stringify(
        rows.map((r) => ({
          id: r.id,
          account_id: r.accountId,
          chat_id: r.chatId,
          channel_id: r.channelId,
          started_at: r.startedAt.toISOString(),
          ended_at: r.endedAt?.toISOString() ?? null,
          ended_by: r.endedAt ? 'quiet' : null,
          outcome: r.outcome,
          confirmed: r.confirmed ?? false,
          durable: r.durable ?? null,
          last_message_at: (r.endedAt ?? r.startedAt).toISOString(),
          last_customer_message_at: r.startedAt.toISOString(),
          messages: r.messages,
          agent_answers: r.agentAnswers ?? (r.outcome === 'resolved_by_agent' ? 1 : 0),
          answered_after_choice: r.answeredAfterChoice ?? 0,
          handed_off_at: r.handedOffAt?.toISOString() ?? null,
          handoff_reason: r.handoffReason ?? null,
          team_replied: (r.memberIds?.length ?? 0) > 0 || r.outcome === 'resolved_by_team',
          member_ids: r.memberIds ?? [],
          first_agent_response_seconds: r.firstAgentResponseSeconds ?? null,
          first_team_response_seconds: r.firstTeamResponseSeconds ?? null,
          assignee_id: r.assigneeId ?? null,
          csat_rating: r.csatRating ?? null,
        })),
      );
      await db.execute(
        sql`insert into conversations (id, account_id, chat_id, channel_id, started_at, ended_at, ended_by, outcome, confirmed,
              durable, last_message_at, last_customer_message_at, messages, agent_answers, answered_after_choice, handed_off_at,
              handoff_reason, team_replied, member_ids, first_agent_response_seconds, first_team_response_seconds, assignee_id,
              csat_rating)
            select id, account_id, chat_id, channel_id, started_at, ended_at, ended_by, outcome, confirmed, durable,
                   last_message_at, last_customer_message_at, messages, agent_answers, answered_after_choice, handed_off_at,
                   handoff_reason, team_replied, member_ids, first_agent_response_seconds, first_team_response_seconds,
                   assignee_id, csat_rating
            from jsonb_to_recordset(${json}::jsonb) as r(id uuid, account_id uuid, chat_id uuid, channel_id text,
              started_at timestamptz, ended_at timestamptz, ended_by text, outcome text, confirmed boolean, durable boolean,
              last_message_at timestamptz, last_customer_message_at timestamptz, messages int, agent_answers int,
              answered_after_choice int, handed_off_at timestamptz, handoff_reason text, team_replied boolean,
              member_ids uuid[], first_agent_response_seconds float8, first_team_response_seconds float8,
              assignee_id uuid, csat_rating smallint)`,
      );
    },
  };
}

export type ConversationsStore = ReturnType<typeof createConversationsStore>;
