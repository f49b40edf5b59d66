// The typed job catalog (each durable job's name and payload) and the states of a job row; the queue
// (job-queue.ts) and its store (job-store.ts) both use them.
import type { HandoffReason } from '@parley/contracts';

/** The typed job catalog: each job's name and payload. */
export interface JobCatalog {
  /** done/undone of the public API (202 at once, the change here). */
  'chat.setTaskStatus': { accountId: string; chatId: string; done: boolean };
  /** The agent answers a chat's waiting customer messages (keyed by chat: one at a time per chat). */
  'agent.reply': { accountId: string; chatId: string };
  /**
   * A handoff's summary is rewritten by the channel's model, then the team is alerted (agent/handoff/model-summary.ts;
   * queued by a handoff in a chat of an openai-compatible engine, in place of the alerts).
   */
  'agent.handoffSummary': { accountId: string; chatId: string; channelId: string; noteId: string; reason: HandoffReason };
  /** A reply goes out to a messenger chat (messengers/messenger-outbound.ts; a `messenger_sends` row). */
  'messenger.send': { sendId: string };
  /** A chat whose task became done goes to a CRM (crm/crm-service.ts; keyed by connection and chat). */
  'crm.sync': { accountId: string; connectionId: string; chatId: string };
  /** Sentence vectors of a knowledge-base entry whose text was written (knowledge/entry-vectors.ts; keyed by entry). */
  'knowledge.embed': { knowledgeBaseId: string; entryId: string };
  /** An uploaded knowledge-base document is parsed into passages (knowledge/documents/documents-service.ts; keyed by document). */
  'knowledge.parseDocument': { knowledgeBaseId: string; documentId: string };
  /** Sentence vectors of a document's passages (knowledge/documents/passage-vectors.ts; keyed by document). */
  'knowledge.embedDocument': { knowledgeBaseId: string; documentId: string };
  /** A chat needs a person: the account's alert webhook gets a chat-tool message (alerts/alert-jobs.ts). */
  'alerts.webhook': { accountId: string; chatId: string; reason: string };
  /**
   * Alert e-mails of a chat, ALERT_EMAIL_DELAY_SECONDS after it needed a person (memberId null: every member who wants
   * handoffs, when no member is online) or after a customer message in a chat assigned to memberId (when offline).
   */
  'alerts.email': { accountId: string; chatId: string; memberId: string | null; assigned?: boolean };
  /** Conversations quiet for their account's resolution time end; those 7 days old become durable (keyed: one at a time). */
  'conversations.sweep': Record<string, never>;
  /** Conversations ended before their account's retentionDays are deleted with their messages and files (keyed: one at a time). */
  'retention.sweep': Record<string, never>;
  /**
   * Auto-assignment gives the account's waiting chats to its members, oldest first (assignment/assigner.ts; keyed by
   * account; queued by database triggers, migration 0040).
   */
  'assignment.run': { accountId: string };
  /** Accounts with waiting chats are assigned again: team hours that opened, anything a run missed (keyed: one at a time). */
  'assignment.sweep': Record<string, never>;
  /** Audit events older than AUDIT_RETENTION_DAYS are deleted (keyed: one at a time). */
  'audit.prune': Record<string, never>;
  /** Past customer questions answered again by a channel's agent, sending nothing (replays/replays-service.ts; keyed by replay). */
  'replay.run': { accountId: string; replayId: string };
}
export type JobKind = keyof JobCatalog;
/** What a handler knows of its run: the attempt (1 for the first) and whether no retry follows a failure. */
export interface JobRun {
  attempt: number;
  lastAttempt: boolean;
}
export const JOB_STATES = ['queued', 'running', 'scheduled'] as const;
export type JobState = (typeof JOB_STATES)[number];
