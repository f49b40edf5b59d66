// SQL of alerts (issue #33): the account's alert webhook, who has the web account open (member_presence), whom a chat
// alerts by e-mail, the hourly limit of those e-mails, and what an alert says of its chat.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.ts';

/** A presence row not renewed within this long is a stopped process's: its members count as offline. */
export const PRESENCE_TTL_MS = 60_000;

export interface AlertChat {
  id: string;
  accountId: string;
  name: string;
  channelKind: string;
  channelName: string | null;
  paused: boolean;
  needsHuman: boolean;
  assigneeId: string | null;
  /** The text of the chat's latest handoff summary (a note of kind `summary`); null: it has none. */
  summary: string | null;
}

export interface AlertMessage {
  role: string;
  origin: string;
  senderName: string | null;
  text: string;
}

export interface AlertRecipient {
  id: string;
  email: string;
  name: string;
}

/** A member's e-mail alerts, the role's default when they chose none (profile-service.ts `defaultEmailAlerts`). */
const EMAIL_ALERTS_TEXT = `coalesce(notify_email, CASE role WHEN 'agent' THEN 'mine' ELSE 'handoffs' END)`;
const EMAIL_ALERTS = sql.raw(EMAIL_ALERTS_TEXT);
const ttl = sql`${`${PRESENCE_TTL_MS} milliseconds`}::interval`;

/**
 * Whether a customer message in chat `chat` (an SQL expression) is to e-mail its assignee `member` (`mine`, DESIGN
 * "e-mail"): an active member wanting `mine`, offline (no live stream in any process), and not e-mailed about this
 * chat within the hour. SQL text, for the ingest statement (messages/ingest-store.ts) and `wantsAssigneeAlert`.
 */
export function assigneeAlertWantedSql(chat: string, member: string): string {
  return `EXISTS (SELECT 1 FROM members WHERE members.id = ${member} AND members.status = 'active' AND ${EMAIL_ALERTS_TEXT} = 'mine')
      AND NOT EXISTS (SELECT 1 FROM member_presence WHERE member_presence.member_id = ${member}
                      AND member_presence.seen_at > now() - interval '${PRESENCE_TTL_MS} milliseconds')
      AND NOT EXISTS (SELECT 1 FROM alert_emails WHERE alert_emails.chat_id = ${chat} AND alert_emails.member_id = ${member}
                      AND alert_emails.sent_at > now() - interval '1 hour')`;
}

export function createAlertsStore(db: Executor) {
  return {
    async webhookUrl(accountId: string): Promise<string | null | undefined> {
      const [row] = await queryRows<{ url: string | null }>(db, sql`SELECT alert_webhook_url AS url FROM accounts WHERE id = ${accountId}`);
      return row?.url;
    },

    async setWebhookUrl(accountId: string, url: string | null): Promise<void> {
      await db.execute(sql`UPDATE accounts SET alert_webhook_url = ${url}, updated_at = now() WHERE id = ${accountId}`);
    },

    async chat(accountId: string, chatId: string): Promise<AlertChat | undefined> {
      const [row] = await queryRows<AlertChat>(
        db,
        sql`SELECT c.id, c.account_id AS "accountId", c.dialog_name AS name, c.channel_kind AS "channelKind",
                   ch.name AS "channelName", c.paused, c.needs_human AS "needsHuman", c.assignee_id AS "assigneeId",
                   (SELECT n.text FROM chat_notes n WHERE n.chat_id = c.id AND n.kind = 'summary'
                    ORDER BY n.created_at DESC, n.id DESC LIMIT 1) AS summary
            FROM chats c LEFT JOIN channels ch ON ch.id = c.channel_id
            WHERE c.account_id = ${accountId} AND c.id = ${chatId}`,
      );
      return row;
    },

    /** The chat's last messages, oldest first (private notes are not messages). */
    async lastMessages(chatId: string, limit: number): Promise<AlertMessage[]> {
      const rows = await queryRows<AlertMessage>(
        db,
        sql`SELECT role, origin, sender_name AS "senderName", text FROM messages
            WHERE chat_id = ${chatId} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
      );
      return rows.reverse();
    },

    /** Active members who want an e-mail when a chat needs a person (`handoffs` or `mine`). */
    handoffRecipients(accountId: string): Promise<AlertRecipient[]> {
      return queryRows<AlertRecipient>(
        db,
        sql`SELECT id, email, name FROM members
            WHERE account_id = ${accountId} AND status = 'active' AND ${EMAIL_ALERTS} IN ('handoffs', 'mine') ORDER BY id`,
      );
    },

    /** The member, when active in the account and wanting e-mails of their own chats (`mine`). */
    async assigneeRecipient(accountId: string, memberId: string): Promise<AlertRecipient | undefined> {
      const [row] = await queryRows<AlertRecipient>(
        db,
        sql`SELECT id, email, name FROM members
            WHERE account_id = ${accountId} AND id = ${memberId} AND status = 'active' AND ${EMAIL_ALERTS} = 'mine'`,
      );
      return row;
    },

    /** Whether any member of the account (or this member) has the web account open in any process. */
    async online(accountId: string, memberId?: string): Promise<boolean> {
      const member = memberId === undefined ? sql`` : sql`AND member_id = ${memberId}`;
      const rows = await queryRows(
        db,
        sql`SELECT 1 FROM member_presence WHERE account_id = ${accountId} ${member} AND seen_at > now() - ${ttl} LIMIT 1`,
      );
      return rows.length > 0;
    },

    /** Whether a customer message in the chat now is to e-mail its assignee (see `assigneeAlertWantedSql`). */
    async wantsAssigneeAlert(chatId: string, memberId: string): Promise<boolean> {
      const rows = await queryRows(
        db,
        sql`SELECT 1 FROM (SELECT ${chatId}::uuid AS chat_id, ${memberId}::uuid AS member_id) v
            WHERE ${sql.raw(assigneeAlertWantedSql('v.chat_id', 'v.member_id'))}`,
      );
      return rows.length > 0;
    },

    /** Takes the hour's e-mail of a chat to a member: false when one went out within the hour. */
    async claimEmail(chatId: string, memberId: string): Promise<boolean> {
      const rows = await queryRows(
        db,
        sql`INSERT INTO alert_emails (chat_id, member_id, sent_at) VALUES (${chatId}, ${memberId}, now())
            ON CONFLICT (chat_id, member_id) DO UPDATE SET sent_at = excluded.sent_at
            WHERE alert_emails.sent_at <= now() - interval '1 hour'
            RETURNING 1`,
      );
      return rows.length > 0;
    },

    /** Gives the hour's e-mail back (it could not be sent: the retry may send it). */
    async releaseEmail(chatId: string, memberId: string): Promise<void> {
      await db.execute(sql`DELETE FROM alert_emails WHERE chat_id = ${chatId} AND member_id = ${memberId}`);
    },

    /**
     * Unassigns the chats of a member being removed; those where the agent is paused now need a person. The chats,
     * each with whether it was newly flagged.
     */
    releaseChatsOf(accountId: string, memberId: string): Promise<{ id: string; flagged: boolean }[]> {
      return queryRows<{ id: string; flagged: boolean }>(
        db,
        sql`WITH old AS (
              SELECT id, needs_human FROM chats WHERE account_id = ${accountId} AND assignee_id = ${memberId} FOR UPDATE)
            UPDATE chats c SET assignee_id = NULL, needs_human = c.needs_human OR c.paused, updated_at = now()
            FROM old WHERE c.id = old.id
            RETURNING c.id, c.paused AND NOT old.needs_human AS flagged`,
      );
    },

    /** Marks these members of this process online now (a new stream, or the heartbeat). */
    async markPresent(processId: string, members: readonly { memberId: string; accountId: string }[]): Promise<void> {
      if (members.length === 0) return;
      const values = sql.join(
        members.map((m) => sql`(${m.memberId}::uuid, ${processId}::uuid, ${m.accountId}::uuid, now())`),
        sql`, `,
      );
      // A member removed meanwhile has no row to point at: skipped.
      await db.execute(
        sql`INSERT INTO member_presence (member_id, process_id, account_id, seen_at)
            SELECT v.member_id, v.process_id, v.account_id, v.seen_at
            FROM (VALUES ${values}) AS v(member_id, process_id, account_id, seen_at)
            WHERE EXISTS (SELECT 1 FROM members WHERE members.id = v.member_id)
            ON CONFLICT (member_id, process_id) DO UPDATE SET seen_at = excluded.seen_at`,
      );
    },

    /**
     * The member chose to be away when their last web-account tab closes (issue #44): away now, unless a stream of
     * theirs is open in any process.
     */
    async awayIfOffline(memberId: string): Promise<void> {
      await db.execute(
        sql`UPDATE members SET availability = 'away', updated_at = now()
            WHERE id = ${memberId} AND away_when_offline AND availability = 'available'
              AND NOT EXISTS (SELECT 1 FROM member_presence WHERE member_id = ${memberId} AND seen_at > now() - ${ttl})`,
      );
    },

    /** The member's last stream in this process closed (or, without a member, the process stops). */
    async markAbsent(processId: string, memberId?: string): Promise<void> {
      const member = memberId === undefined ? sql`` : sql`AND member_id = ${memberId}`;
      await db.execute(sql`DELETE FROM member_presence WHERE process_id = ${processId} ${member}`);
    },
  };
}

export type AlertsStore = ReturnType<typeof createAlertsStore>;
