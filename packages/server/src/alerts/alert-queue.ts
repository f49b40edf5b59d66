// What starts an alert (issue #33), written in the transaction of the change that causes it: a chat that needs a
// person (a handoff, a customer message in a paused unassigned chat, its assignee removed) gets the alert webhook
// at once and the alert e-mails ALERT_EMAIL_DELAY_SECONDS later; a customer message in a chat with an assignee
// (paused or not) who is offline gets that member's e-mail (`mine`) as late. The jobs decide when they run
// (alert-jobs.ts).
import type { Executor } from '../db/client.ts';
import { notifyChatChanged } from '../events/live-feed.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import { createAlertsStore } from './alerts-store.ts';

/** Why a chat needs a person: a handoff's reason, or the follow-through's. */
export type NeedsPersonReason = 'model' | 'customer_request' | 'fallbacks' | 'customer_message' | 'member_removed';

export interface AlertQueue {
  /** A chat needs a person: the webhook now, the e-mails after the delay. */
  needsPerson(tx: Executor, chat: { accountId: string; id: string }, reason: NeedsPersonReason): Promise<void>;
  /**
   * A customer wrote in a chat assigned to this member (paused or not): their e-mail after the delay, if they want
   * `mine`, are offline now and still then, and had none about this chat within the hour.
   */
  assigneeAlert(tx: Executor, chat: { accountId: string; id: string }, memberId: string): Promise<void>;
  /** A member is being removed: its chats are unassigned, the paused ones need a person (and alert as such). */
  memberRemoved(tx: Executor, accountId: string, memberId: string): Promise<void>;
}

/** The job queue after a commit: webhooks go out within moments, whichever process committed. */
const WAKE_AFTER_COMMIT_MS = 200;

export function createAlertQueue(jobs: Pick<JobQueue, 'enqueue' | 'wakeIn'>, emailDelayMs: number): AlertQueue {
  async function needsPerson(tx: Executor, chat: { accountId: string; id: string }, reason: NeedsPersonReason): Promise<void> {
    await jobs.enqueue(tx, 'alerts.webhook', { accountId: chat.accountId, chatId: chat.id, reason });
    await jobs.enqueue(tx, 'alerts.email', { accountId: chat.accountId, chatId: chat.id, memberId: null }, { delayMs: emailDelayMs });
    jobs.wakeIn(WAKE_AFTER_COMMIT_MS);
  }
  return {
    needsPerson,
    async memberRemoved(tx, accountId, memberId) {
      for (const chat of await createAlertsStore(tx).releaseChatsOf(accountId, memberId)) {
        // Open Inboxes reload the chat (its assignee, and the flag).
        await notifyChatChanged(tx, accountId, chat.id);
        if (chat.flagged) await needsPerson(tx, { accountId, id: chat.id }, 'member_removed');
      }
    },
    async assigneeAlert(tx, chat, memberId) {
      if (!(await createAlertsStore(tx).wantsAssigneeAlert(chat.id, memberId))) return;
      await jobs.enqueue(tx, 'alerts.email', { accountId: chat.accountId, chatId: chat.id, memberId }, { delayMs: emailDelayMs });
      jobs.wakeIn(emailDelayMs + WAKE_AFTER_COMMIT_MS);
    },
  };
}

/** No alerts (tests and tools that build a service alone). */
export const NO_ALERTS: AlertQueue = { needsPerson: async () => {}, assigneeAlert: async () => {}, memberRemoved: async () => {} };
