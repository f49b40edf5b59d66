// How a reply reaches the customer beyond the webhook: for a messenger chat, a durable send job queued in the
// reply's own transaction (messengers/messenger-outbound.ts). Services that store replies (team, agent, auto-reply)
// call it for every reply; chats of other kinds need nothing.
import type { ChatRow } from '../chats/chats-store.ts';
import type { Executor } from '../db/client.ts';
import type { MessageRow } from './messages-store.ts';

export interface CustomerDelivery {
  /** In the reply's transaction: queues its delivery when the chat is a messenger's. */
  enqueue(tx: Executor, chat: ChatRow, message: MessageRow): Promise<void>;
  /** After the commit: the send jobs start at once. */
  wake(): void;
}

export const NO_CUSTOMER_DELIVERY: CustomerDelivery = { enqueue: async () => {}, wake: () => {} };
