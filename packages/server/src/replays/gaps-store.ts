// SQL of knowledge gaps (issue #37): the customer questions a knowledge base's channels could not answer.
import { sql } from 'drizzle-orm';
import type { StoredChoices } from '../db/schema.ts';
import { queryRows, type Executor } from '../db/client.ts';

/** An agent reply with no answer (a fallback, a handoff, a clarification), the customer message before it, and around. */
export interface UnansweredQuestion {
  /** The customer's message the agent answered with its fallback, handoff or clarification. */
  text: string;
  /** The agent's reply was a clarification (a gap only of the menu before it, when that menu was ignored). */
  clarified: boolean;
  /**
   * The choices of the agent's reply before that message: a `0` to them, or a message that is no pick of them and got
   * no answer (an ignored menu), is a gap of the clarified question.
   */
  offered: StoredChoices | null;
  /** The first member reply after the agent's, if any. */
  teamAnswer: string | null;
  aiLang: string | null;
}

/** The most unanswered questions one list looks at (the newest). */
export const GAP_QUESTIONS_MAX = 5_000;

export function createGapsStore(db: Executor) {
  return {
    /**
     * The customer messages since `since` on the account's channels using the base that got a fallback, a handoff or
     * a clarification, newest first.
     */
    unanswered(accountId: string, knowledgeBaseId: string, since: Date): Promise<UnansweredQuestion[]> {
      return queryRows<UnansweredQuestion>(
        db,
        sql`SELECT q.text, r.choices IS NOT NULL AS clarified, prev.choices AS offered, team.text AS "teamAnswer", ch.settings->>'aiLang' AS "aiLang"
            FROM messages r
            JOIN chats c ON c.id = r.chat_id
            JOIN channels ch ON ch.id = c.channel_id AND ch.knowledge_base_id = ${knowledgeBaseId}::uuid
            JOIN LATERAL (
              SELECT m.text, m.created_at, m.id FROM messages m
              WHERE m.chat_id = r.chat_id AND m.origin = 'customer' AND (m.created_at, m.id) < (r.created_at, r.id)
              ORDER BY m.created_at DESC, m.id DESC LIMIT 1
            ) q ON true
            LEFT JOIN LATERAL (
              SELECT m.choices FROM messages m
              WHERE m.chat_id = r.chat_id AND m.role = 'assistant' AND (m.created_at, m.id) < (q.created_at, q.id)
              ORDER BY m.created_at DESC, m.id DESC LIMIT 1
            ) prev ON true
            LEFT JOIN LATERAL (
              SELECT m.text FROM messages m
              WHERE m.chat_id = r.chat_id AND m.origin IN ('team', 'api') AND (m.created_at, m.id) > (r.created_at, r.id)
              ORDER BY m.created_at, m.id LIMIT 1
            ) team ON true
            WHERE r.account_id = ${accountId}::uuid AND c.account_id = ${accountId}::uuid AND r.origin = 'agent'
              AND (r.fallback OR r.handoff OR r.choices IS NOT NULL) AND r.created_at >= ${since.toISOString()}::timestamptz
            ORDER BY r.created_at DESC, r.id DESC LIMIT ${GAP_QUESTIONS_MAX}`,
      );
    },
  };
}
