// The model's three lines of a handoff's summary (issue #44, item 4; docs/decisions.md, "Handoff summaries by the
// model"): when the chat's channel has an openai-compatible engine, the handoff's transaction writes the summary
// without the model (handoff-summary.ts) and queues `agent.handoffSummary` in place of the alerts. The job, after
// that commit, asks the model once (no retry, at most SUMMARY_TIMEOUT_MS) for three lines from the chat's last
// messages and the summary's facts; then, in one transaction, the note becomes those lines and the card's
// `Customer:` line, and the alerts are queued, so the alert webhook and e-mail read the final summary. When the model
// fails, times out or writes fewer than three lines, the summary without the model stays and the alerts go all the same.
import type { HandoffReason } from '@parley/contracts';
import { NOTE_TEXT_MAX } from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { AlertQueue } from '../../alerts/alert-queue.ts';
import type { ChannelsStore } from '../../channels/channels-store.ts';
import type { Database, Executor } from '../../db/client.ts';
import { notifyChatChanged } from '../../events/live-feed.ts';
import type { JobCatalog, JobQueue } from '../../jobs/job-queue.ts';
import type { MessageRow, MessagesStore } from '../../messages/messages-store.ts';
import type { NotesStore } from '../../messages/notes-store.ts';
import type { ModelDrafter } from '../engines/model-draft.ts';

/** The first line of the request's system message (tests tell the summary's requests from the agent's by it). */
export const SUMMARY_PROMPT = "You write the summary of a customer support chat for the member of the team who takes it over from the AI agent.";
/** The chat's last messages the model reads. */
const SUMMARY_HISTORY_MESSAGES = 20;
/** The alerts wait for the model at most this long (less when the engine's own timeout is shorter). */
export const SUMMARY_TIMEOUT_MS = 20_000;
const LINE_MAX = 300;
const QUOTE_MAX = 500;
/** The job queue wakes this long after the handoff commits (the alert queue's own pause). */
const WAKE_AFTER_COMMIT_MS = 200;

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The system message: what to write, and the facts of the summary without the model. */
export function summaryPrompt(facts: string): string {
  return [
    SUMMARY_PROMPT,
    'Write exactly three lines in English, each one short sentence, and nothing before or after them:',
    'Request: what the customer wants (no greetings);',
    'Agent: what the AI agent answered or offered;',
    'Reason: why the chat was handed to the team.',
    'Use only what the chat and these facts say; never guess.',
    'Facts:',
    facts,
  ].join('\n');
}

/** The chat as one text, oldest first: who said what. */
export function transcript(messages: readonly Pick<MessageRow, 'role' | 'origin' | 'senderName' | 'text'>[]): string {
  return messages
    .filter((message) => message.text.trim().length > 0)
    .map((message) => {
      const who = message.role === 'user' ? 'Customer' : message.origin === 'agent' ? 'AI agent' : message.origin === 'auto' ? 'Auto-reply' : (message.senderName ?? 'Team');
      return `${who}: ${cut(message.text, QUOTE_MAX)}`;
    })
    .join('\n');
}

/** The model's three lines (list marks taken off, each cut at LINE_MAX); null when it wrote fewer. */
export function modelLines(text: string): string[] | null {
  const lines = text
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
    .filter((line) => line.length > 0);
  return lines.length >= 3 ? lines.slice(0, 3).map((line) => cut(line, LINE_MAX)) : null;
}

export interface ModelSummariesDeps {
  db: Database;
  logger: FastifyBaseLogger;
  jobs: Pick<JobQueue, 'enqueue' | 'wakeIn'>;
  model: Pick<ModelDrafter, 'complete'>;
  notesStore: (executor: Executor) => Pick<NotesStore, 'find' | 'setSummaryText'>;
  messagesStore: (executor: Executor) => Pick<MessagesStore, 'listRecent'>;
  channelsStore: (executor: Executor) => Pick<ChannelsStore, 'find'>;
  alerts: Pick<AlertQueue, 'needsPerson'>;
}

export function createModelSummaries(deps: ModelSummariesDeps) {
  const { db, logger, jobs, model, notesStore, messagesStore, channelsStore, alerts } = deps;

  /** The model's summary of the note, or null (no model, a failure, too few lines). Never inside a transaction. */
  async function summarize({ accountId, chatId, channelId, noteId }: JobCatalog['agent.handoffSummary']): Promise<string | null> {
    const note = await notesStore(db).find(accountId, noteId);
    const channel = note ? await channelsStore(db).find(accountId, channelId) : undefined;
    if (!note || note.kind !== 'summary' || !channel || channel.agentEngine.kind !== 'openai-compatible') return null;
    const messages = await messagesStore(db).listRecent(accountId, chatId, SUMMARY_HISTORY_MESSAGES);
    try {
      const text = await model.complete({
        channel: { engine: channel.agentEngine, apiKey: channel.agentApiKey },
        messages: [
          { role: 'system', content: summaryPrompt(note.text) },
          { role: 'user', content: transcript(messages) },
        ],
        maxTimeoutMs: SUMMARY_TIMEOUT_MS,
      });
      const lines = text === null ? null : modelLines(text);
      if (!lines) {
        logger.warn({ chatId, channelId }, 'the model wrote no three-line handoff summary; the summary without it stays');
        return null;
      }
      const card = note.text.split('\n').find((line) => line.startsWith('Customer: '));
      return [...lines, ...(card ? [card] : [])].join('\n').slice(0, NOTE_TEXT_MAX);
    } catch (error) {
      logger.warn({ chatId, channelId, err: error instanceof Error ? error.message : String(error) }, 'model handoff summary failed; the summary without it stays');
      return null;
    }
  }

  return {
    /** In the handoff's transaction, in place of the alerts: the job that summarizes, then alerts. */
    async enqueue(tx: Executor, chat: { accountId: string; id: string; channelId: string }, noteId: string, reason: HandoffReason): Promise<void> {
      await jobs.enqueue(tx, 'agent.handoffSummary', { accountId: chat.accountId, chatId: chat.id, channelId: chat.channelId, noteId, reason });
      jobs.wakeIn(WAKE_AFTER_COMMIT_MS);
    },

    /** The job: the model's lines (outside any transaction), then the note and the alerts in one transaction. */
    async run(payload: JobCatalog['agent.handoffSummary']): Promise<void> {
      const text = await summarize(payload);
      const { accountId, chatId, noteId, reason } = payload;
      await db.transaction(async (tx) => {
        if (text !== null) {
          await notesStore(tx).setSummaryText(accountId, noteId, text);
          // Open Inboxes reload the chat (its banner).
          await notifyChatChanged(tx, accountId, chatId);
        }
        await alerts.needsPerson(tx, { accountId, id: chatId }, reason);
      });
    },
  };
}

export type ModelSummaries = ReturnType<typeof createModelSummaries>;
