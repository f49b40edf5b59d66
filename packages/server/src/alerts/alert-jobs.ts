// The alert jobs (issue #33): `alerts.webhook` posts a chat-tool message (Slack / Mattermost / Teams incoming
// webhook: `text`) through the URL guard, 3 attempts like webhooks; `alerts.email` e-mails the members who want it
// when, after the delay, the chat still needs a person and no member is online (or its assignee is offline: a
// customer message in their chat, or a chat auto-assignment gave them), at most one e-mail per chat and member an hour.
import type { FastifyBaseLogger } from 'fastify';
import type { JobCatalog, RetryPolicy } from '../jobs/job-queue.ts';
import type { AlertChat, AlertMessage, AlertRecipient, AlertsStore } from './alerts-store.ts';

/** 3 attempts, 2 s then 4 s apart: the webhooks' own schedule. */
export const ALERT_WEBHOOK_RETRY: RetryPolicy = { maxAttempts: 3, backoffMs: (attempt) => 2_000 * 2 ** (attempt - 1) };
/** The messages an alert e-mail quotes. */
const QUOTED_MESSAGES = 5;

export interface AlertMailer {
  sendText(mail: { to: string; subject: string; text: string }, what: string): Promise<boolean>;
  /** SMTP_URL is set: without it there is no e-mail to send (and nothing to retry). */
  readonly configured: boolean;
}

export interface AlertPoster {
  post(url: string, body: string): Promise<{ ok: boolean; status: number | null; error?: string }>;
}

const REASONS: Record<string, string> = {
  model: 'the AI agent handed it over',
  customer_request: 'the customer asked for a person',
  fallbacks: 'the AI agent could not answer',
  customer_message: 'the customer wrote again while the agent is paused',
  member_removed: 'the member it was assigned to was removed',
};

/** The reasons of a handoff: their alerts carry the handoff's summary. */
const HANDOFF_REASONS = new Set(['model', 'customer_request', 'fallbacks']);

function chatUrl(publicUrl: string, chatId: string): string {
  return `${publicUrl}/inbox/${chatId}`;
}

function quote(messages: AlertMessage[]): string {
  return messages
    .map((m) => {
      const who = m.role === 'user' ? 'Customer' : m.origin === 'agent' ? 'AI agent' : (m.senderName ?? 'Team');
      return `${who}: ${m.text.length > 500 ? `${m.text.slice(0, 500)}…` : m.text}`;
    })
    .join('\n');
}

export function createAlertJobs(deps: {
  store: AlertsStore;
  mailer: AlertMailer;
  poster: AlertPoster;
  publicUrl: string;
  logger: FastifyBaseLogger;
}) {
  const { store, mailer, poster, publicUrl, logger } = deps;

  async function mail(chat: AlertChat, recipients: AlertRecipient[], subject: string, intro: string, summary: string | null = null): Promise<void> {
    if (recipients.length === 0) return;
    const text = `${intro}\n\n${summary ? `Summary:\n${summary}\n\n` : ''}${quote(await store.lastMessages(chat.id, QUOTED_MESSAGES))}\n\nOpen the chat: ${chatUrl(publicUrl, chat.id)}\n`;
    let failed = 0;
    for (const recipient of recipients) {
      if (!(await store.claimEmail(chat.id, recipient.id))) continue;
      if (await mailer.sendText({ to: recipient.email, subject, text }, 'an alert')) continue;
      await store.releaseEmail(chat.id, recipient.id);
      failed += 1;
    }
    if (failed > 0) throw new Error(`${failed} alert e-mail(s) could not be sent`);
  }

  return {
    async webhook({ accountId, chatId, reason }: JobCatalog['alerts.webhook']): Promise<void> {
      const url = await store.webhookUrl(accountId);
      const chat = url ? await store.chat(accountId, chatId) : undefined;
      if (!url || !chat) return;
      const link = chatUrl(publicUrl, chat.id);
      const text = `Chat "${chat.name}" (${chat.channelName ?? chat.channelKind}) needs a person: ${REASONS[reason] ?? reason}. ${link}`;
      const summary = HANDOFF_REASONS.has(reason) ? chat.summary : null;
      const body = JSON.stringify({ text, chat: { id: chat.id, name: chat.name, channelName: chat.channelKind }, reason, url: link, summary });
      const result = await poster.post(url, body);
      if (!result.ok) throw new Error(`alert webhook: ${result.status ?? result.error ?? 'no answer'}`);
    },

    async email({ accountId, chatId, memberId, assigned }: JobCatalog['alerts.email']): Promise<void> {
      const chat = mailer.configured ? await store.chat(accountId, chatId) : undefined;
      if (!chat) return;
      const where = `${chat.channelName ?? chat.channelKind} (${chat.channelKind})`;
      if (memberId === null) {
        // Someone took it meanwhile, or someone is there to see it in the web account.
        if (!chat.needsHuman || (await store.online(accountId))) return;
        await mail(chat, await store.handoffRecipients(accountId), `Chat "${chat.name}" on ${where} needs a person`, `A chat on ${where} needs a person and no one on the team is online.`, chat.summary);
        return;
      }
      if (chat.assigneeId !== memberId || (await store.online(accountId, memberId))) return;
      const recipient = await store.assigneeRecipient(accountId, memberId);
      if (!recipient) return;
      if (assigned) {
        // Auto-assignment (issue #44) gave them the chat while they were offline.
        await mail(chat, [recipient], `Chat "${chat.name}" on ${where} was assigned to you`, `A chat on ${where} that needs a person was assigned to you.`, chat.summary);
        return;
      }
      await mail(chat, [recipient], `New message in chat "${chat.name}" on ${where}`, `The customer of a chat assigned to you wrote while you were away.`);
      logger.debug({ chatId, memberId }, 'assignee alerted by e-mail');
    },
  };
}
