// CSAT (docs/architecture.md, Outcomes and reports): when a conversation ends the customer is asked `How did we do?`
// (the widget's frame shows 1–5 and a comment); the rating belongs to the conversation it ends, is given once, and
// a 4 or 5 confirms a resolution by the agent. The widget asks for the chat's latest conversation when it has ended,
// is unrated and ended less than CSAT_RECENT_MS ago.
import type { Database } from '../db/client.ts';
import { Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { isUuid } from '../lib/ids.ts';
import { createConversationsStore } from './conversations-store.ts';

/** How long after its end a conversation is still offered for rating. */
export const CSAT_RECENT_MS = 24 * 60 * 60_000;

export function createCsat({ db, clock }: { db: Database; clock: Clock }) {
  const store = createConversationsStore(db);
  return {
    /** The conversation of the chat the customer may rate now, if any. */
    async pending(chatId: string): Promise<{ conversationId: string } | null> {
      const latest = await store.latestEnded(chatId);
      if (!latest || latest.csatRating !== null || clock.now().getTime() - latest.endedAt.getTime() > CSAT_RECENT_MS) return null;
      return { conversationId: latest.id };
    },

    /** Stores the rating of an ended conversation of the chat: 404 when there is none such, 409 when rated already. */
    async rate(chatId: string, conversationId: string, rating: number, comment: string | null): Promise<void> {
      if (!isUuid(conversationId)) throw Errors.csatNotAsked();
      const result = await store.rate(chatId, conversationId, rating, comment?.trim() || null, clock.now());
      if (result === 'none') throw Errors.csatNotAsked();
      if (result === 'already') throw Errors.csatAlreadyRated();
    },
  };
}

export type Csat = ReturnType<typeof createCsat>;
