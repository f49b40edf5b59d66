// Replay (issue #37; docs/architecture.md, Replay and knowledge gaps): past customer questions — the channel's own
// history or an uploaded file — answered again by the channel's agent as configured now, through the same path as
// the console's `Try the agent` (agent-service.ts `evaluate`), sending and storing nothing but the replay's rows.
// The start stores the questions and queues the replay's job in one transaction; the job (keyed by the replay, so
// one runs at a time, leased so a crash resumes it) answers the questions not replayed yet in batches, each batch's
// replies asked outside any transaction (at most CONCURRENCY at once) and written in one statement, and queues itself
// again after RUN_BUDGET_MS so a stop is never long in coming.
import { readFile } from 'node:fs/promises';
import { REPLAY_MAX_ROWS, type Replay, type ReplayItem, type ReplayMark, type ReplayVerdict, type StartedReplay } from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { AgentEngineError } from '../agent/engine.ts';
import type { AgentService } from '../agent/agent-service.ts';
import { DEFAULT_SETTINGS } from '../channels/channels-service.ts';
import type { ChannelRow, ChannelsStore } from '../channels/channels-store.ts';
import type { Database, Executor } from '../db/client.ts';
import { Errors } from '../errors.ts';
import type { Upload } from '../files/file-storage.ts';
import type { JobQueue, JobRun } from '../jobs/job-queue.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { Agreement } from './agreement.ts';
import { parseReplayFile, type ReplayRow } from './replay-file.ts';
import { createReplaysStore, type ReplayItemRecord, type ReplaysStore } from './replays-store.ts';

/** Questions read and written at a time. */
const BATCH = 100;
/** Questions asked of the engine at once (a model server is not flooded; the built-in engine keeps its encoder busy). */
export const CONCURRENCY = 4;
/** A job run stops after a batch past this long and queues the rest as its next run. */
const RUN_BUDGET_MS = 15_000;
const DEFAULT_DAYS = 30;

export interface ReplaysServiceDeps {
  db: Database;
  clock: Clock;
  logger: FastifyBaseLogger;
  jobs: Pick<JobQueue, 'enqueue' | 'wake'>;
  channelsStore: (executor: Executor) => Pick<ChannelsStore, 'find'>;
  agent: Pick<AgentService, 'evaluate'>;
  agreement: Agreement;
  baseLanguage: (accountId: string, knowledgeBaseId: string) => Promise<string | undefined>;
  /** Embeds a batch's texts at once before they are asked one by one (the built-in encoder; optional). */
  primeQuestions?: (language: string, texts: readonly string[]) => Promise<void>;
}

export const replayJobKey = (replayId: string) => `replay.run:${replayId}`;

/** `fn` over the items, at most `limit` at once, results in order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function itemOf(row: ReplayItemRecord): ReplayItem {
  return {
    id: row.id,
    question: row.question,
    teamAnswer: row.teamAnswer,
    answeredBy: row.answeredBy,
    agentReply: row.agentReply,
    verdict: row.verdict,
    mark: row.mark,
    wouldCall: row.wouldCall,
  };
}

export function createReplaysService(deps: ReplaysServiceDeps) {
  const { db, clock, jobs, agreement } = deps;
  const store: ReplaysStore = createReplaysStore(db);

  async function rowsOf(accountId: string, channelId: string, body: { source?: 'history'; days?: number }, uploads: readonly Upload[]): Promise<ReplayRow[]> {
    const [upload] = uploads;
    if (upload) {
      if (body.source !== undefined || body.days !== undefined) throw Errors.replaySourceTwice();
      const bytes = 'bytes' in upload ? upload.bytes : await readFile(upload.path);
      return parseReplayFile(bytes, upload.name, 'contentType' in upload ? (upload.contentType ?? '') : '');
    }
    if (body.source !== 'history') throw Errors.replaySourceMissing();
    const since = new Date(clock.now().getTime() - (body.days ?? DEFAULT_DAYS) * 86_400_000);
    const questions = await store.historyQuestions(accountId, channelId, since, REPLAY_MAX_ROWS);
    return questions.map((q) => ({ question: q.question, teamAnswer: q.teamAnswer, answeredBy: q.answeredBy, conversationId: q.chatId }));
  }

  /** The verdict of the agent's reply to one question (actions: `read` ones called only with `callReadActions`). */
  async function verdictOf(
    channel: ChannelRow,
    language: string,
    item: ReplayItemRecord,
    accountId: string,
    callReadActions: boolean,
  ): Promise<{ agentReply: string | null; verdict: ReplayVerdict; wouldCall: string[] }> {
    const { reply, outcome, wouldCall } = await deps.agent.evaluate(accountId, channel, item.question, { callReadActions });
    if (outcome !== 'answered') return { agentReply: reply, verdict: outcome, wouldCall };
    const agrees =
      reply !== null &&
      item.teamAnswer !== null &&
      (await agreement.agrees({ engine: channel.agentEngine.kind, knowledgeBaseId: channel.knowledgeBaseId, language, agentReply: reply, teamAnswer: item.teamAnswer }));
    return { agentReply: reply, verdict: agrees ? 'agrees' : 'differs', wouldCall };
  }

  return {
    /** Stores the questions and queues their replay (admin role, checked by the route's contract). */
    async start(
      accountId: string,
      body: { channelId: string; source?: 'history'; days?: number; callReadActions?: boolean | 'true' | 'false' },
      uploads: readonly Upload[],
    ): Promise<StartedReplay> {
      const channel = await deps.channelsStore(db).find(accountId, body.channelId);
      if (!channel) throw Errors.channelNotFound();
      const rows = await rowsOf(accountId, channel.id, body, uploads);
      const id = newId();
      await db.transaction(async (tx) => {
        const callReadActions = body.callReadActions === true || body.callReadActions === 'true';
        const source = uploads.length > 0 ? 'file' : 'history';
        await createReplaysStore(tx).insert({ id, accountId, channelId: channel.id, source, callReadActions, createdAt: clock.now() }, rows);
        if (rows.length > 0) await jobs.enqueue(tx, 'replay.run', { accountId, replayId: id }, { key: replayJobKey(id) });
      });
      jobs.wake();
      return { id, status: 'running', total: rows.length };
    },

    async get(accountId: string, replayId: string): Promise<Replay> {
      const row = await store.find(accountId, replayId);
      if (!row) throw Errors.replayNotFound();
      const marked = row.markedRight + row.markedWrong;
      return {
        id: row.id,
        channelId: row.channelId,
        status: row.status,
        total: row.total,
        done: row.done,
        summary: {
          answered: row.agrees + row.differs,
          agreesWithTeam: row.agrees,
          differs: row.differs,
          clarified: row.clarified,
          handedOff: row.handedOff,
          fellBack: row.fellBack,
          markedRight: row.markedRight,
          markedWrong: row.markedWrong,
          // Answered items only: a right or wrong clarification, handoff or fallback says nothing of answers' precision.
          estimatedPrecision: marked === 0 ? null : row.markedRight / marked,
          unansweredMarks: { markedRight: row.unansweredRight, markedWrong: row.unansweredWrong },
        },
      };
    },

    async items(accountId: string, replayId: string, query: { verdict?: ReplayVerdict; limit?: number; cursor?: string }) {
      const limit = query.limit ?? 50;
      let afterPosition = 0;
      if (query.cursor !== undefined) {
        if (!/^\d{1,9}$/.test(query.cursor)) throw Errors.invalidCursor();
        afterPosition = Number(query.cursor);
      }
      const rows = await store.listItems(accountId, replayId, { verdict: query.verdict, limit: limit + 1, afterPosition });
      if (!rows) throw Errors.replayNotFound();
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { items: page.map(itemOf), nextCursor: rows.length > limit && last ? String(last.position) : null };
    },

    async mark(accountId: string, replayId: string, itemId: string, mark: ReplayMark | null): Promise<ReplayItem> {
      const row = await store.setMark(accountId, replayId, itemId, mark);
      if (!row) throw Errors.replayItemNotFound();
      return itemOf(row);
    },

    /** The replay job: answers the questions not replayed yet, batch by batch, until done or its budget is spent. */
    async run({ accountId, replayId }: { accountId: string; replayId: string }, run: JobRun): Promise<void> {
      const state = await store.state(replayId);
      if (!state || state.status !== 'running' || state.accountId !== accountId) return;
      const channel = await deps.channelsStore(db).find(accountId, state.channelId);
      if (!channel) return store.finish(replayId, 'failed', clock.now(), 'The channel was deleted');
      const aiLang = ({ ...DEFAULT_SETTINGS, ...channel.settings }).aiLang.toLowerCase().split('-')[0] || 'en';
      const language = (channel.knowledgeBaseId ? await deps.baseLanguage(accountId, channel.knowledgeBaseId) : undefined) ?? aiLang;
      const startedAt = performance.now();
      for (;;) {
        const batch = await store.pending(replayId, BATCH);
        if (batch.length === 0) return store.finish(replayId, 'done', clock.now());
        // The batch's questions and team answers in one call of the encoder: each lookup then finds its vector.
        const texts = batch.flatMap((item) => (item.teamAnswer === null ? [item.question] : [item.question, item.teamAnswer]));
        if (channel.knowledgeBaseId) await deps.primeQuestions?.(language, texts);
        let results;
        try {
          results = await mapLimited(batch, CONCURRENCY, async (item) => ({
            id: item.id,
            ...(await verdictOf(channel, language, item, accountId, state.callReadActions)),
          }));
        } catch (error) {
          // The engine failing for good (a model server down past the job's retries) fails the replay.
          if (error instanceof AgentEngineError && run.lastAttempt) return store.finish(replayId, 'failed', clock.now(), error.message);
          throw error;
        }
        await store.writeResults(replayId, results);
        if (performance.now() - startedAt > RUN_BUDGET_MS) {
          // The rest in the next run (the key makes this job run once more when it ends).
          await jobs.enqueue(db, 'replay.run', { accountId, replayId }, { key: replayJobKey(replayId) });
          return;
        }
      }
    },
  };
}

export type ReplaysService = ReturnType<typeof createReplaysService>;
