// The typed job catalog (each durable job's name and payload) and the states of a job row; the queue
// (job-queue.ts) and its store (job-store.ts) both use them.
/** The typed job catalog: each job's name and payload. */
export interface JobCatalog {
  /** done/undone of the public API (202 at once, the change here). */
  'chat.setTaskStatus': { accountId: string; chatId: string; done: boolean };
  /** The agent answers a chat's waiting customer messages (keyed by chat: one at a time per chat). */
  'agent.reply': { accountId: string; chatId: string };
  /** A reply goes out to a messenger chat (channels/messenger-outbound.ts; a `messenger_sends` row). */
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
  'alerts.email': { accountId: string; chatId: string; memberId: string | null };
  /** Conversations quiet for their account's resolution time end; those 7 days old become durable (keyed: one at a time). */
  'conversations.sweep': Record<string, never>;
}
export type JobKind = keyof JobCatalog;
/** What a handler knows of its run: the attempt (1 for the first) and whether no retry follows a failure. */
export interface JobRun {
  attempt: number;
  lastAttempt: boolean;
}
export const JOB_STATES = ['queued', 'running', 'scheduled'] as const;
export type JobState = (typeof JOB_STATES)[number];
