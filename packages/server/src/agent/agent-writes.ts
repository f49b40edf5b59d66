// The writes of the agent (agent-service.ts): a reply with its events in one transaction (one statement when it
// fires no task trigger and hands nothing over), the handoff to the team, the off-hours auto-reply, and the record
// of an engine's failure.
import { recordTaskStatus, settingsOf, type ChatsServiceDeps } from '../chats/chats-service.ts';
import type { ChatRow, ChatsStore } from '../chats/chats-store.ts';
import { DEFAULT_SETTINGS } from '../channels/channels-service.ts';
import type { ChannelRow, ChannelsStore } from '../channels/channels-store.ts';
import { NO_CUSTOMER_DELIVERY, type CustomerDelivery } from '../messages/customer-delivery.ts';
import type { Database, Executor } from '../db/client.ts';
import type { StoredTeamHours } from '../db/schema.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../lib/ids.ts';
import { recordNewMessage } from '../messages/message-events.ts';
import type { MessageRow, MessagesStore } from '../messages/messages-store.ts';
import type { NotesStore } from '../messages/notes-store.ts';
import type { Clock } from '../lib/clock.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { AgentStore } from './agent-store.ts';
import type { ReplyStore } from './reply-store.ts';
import { webhookChat, webhookMessage } from '../webhooks/payloads.ts';
import type { AlertQueue } from '../alerts/alert-queue.ts';
import type { AgentAnswer } from './engine.ts';
import { isMessengerKind, NOTE_TEXT_MAX } from '@parley/contracts';
import { handoffText, teamBackText } from './agent-texts.ts';
import { teamBack } from '../assignment/team-hours.ts';
import { handoffSummary } from './handoff/handoff-summary.ts';
import type { ModelSummaries } from './handoff/model-summary.ts';

/** What the agent's writes use: the agent service's dependencies include these (agent-service.ts). */
export interface AgentWritesDeps {
  db: Database;
  clock: Clock;
  logger: FastifyBaseLogger;
  agentStore: (executor: Executor) => AgentStore;
  /** The reply job's fixed statements (context read, reply written). */
  replyStore: ReplyStore;
  messagesStore: (executor: Executor) => Pick<MessagesStore, 'insert' | 'touchChat' | 'listRecent'>;
  chatsStore: (executor: Executor) => ChatsStore;
  channelsStore: ChatsServiceDeps['channelsStore'] & ((executor: Executor) => Pick<ChannelsStore, 'find'>);
  /** Replies to messenger chats go out through their messenger (a job queued in the reply's transaction). */
  customerDelivery?: CustomerDelivery;
  /** CRM syncs when the model completes the task (chats-service.ts, recordTaskStatus). */
  crmSync?: ChatsServiceDeps['crmSync'];
  /** The model's reason for a handoff is kept as a private note of the chat (messages/notes-store.ts). */
  notesStore?: (executor: Executor) => Pick<NotesStore, 'insert'>;
  /** A handoff alerts the team (alerts/alert-queue.ts), in its transaction. */
  alerts?: Pick<AlertQueue, 'needsPerson'>;
  /**
   * A handoff in a chat of an openai-compatible engine queues the model's summary instead, which alerts the team once
   * the summary is final (handoff/model-summary.ts); absent: the alerts at once.
   */
  modelSummaries?: Pick<ModelSummaries, 'enqueue'>;
  /** The account's team hours (issue #44): outside them a handoff's message says when the team is back. */
  teamHours?: (accountId: string) => Promise<StoredTeamHours | null>;
  /** A pick of a clarification's option keeps the customer's question as a learned phrasing of the entry. */
  learnPhrasing?: (tx: Executor, entryId: string, question: string, at: Date, chatId: string) => Promise<void>;
}

/** The author of the note that keeps the model's reason for a handoff (a note of no member). */
export const HANDOFF_NOTE_AUTHOR = 'AI agent';
export const HANDOFF_NOTE_PREFIX = 'Handed to the team: ';
/** The chat's messages a handoff's summary reads (the stretch since the team last replied is within them). */
const SUMMARY_MESSAGES = 50;

/** What the agent sends when it hands a chat over: the channel's handoff message, or the default in its aiLang. */
export function handoffMessageOf(channel: Pick<ChannelRow, 'handoffMessage' | 'settings'>): string {
  return channel.handoffMessage ?? handoffText({ ...DEFAULT_SETTINGS, ...channel.settings }.aiLang);
}

/**
 * The handoff message and, outside the account's team hours, when the team is back (`We are back Monday at 09:00.`
 * in aiLang, issue #44).
 */
async function handoffMessageAt(deps: Pick<AgentWritesDeps, 'teamHours'>, channel: ChannelRow, accountId: string, at: Date): Promise<string> {
  const message = handoffMessageOf(channel);
  const back = deps.teamHours ? teamBack(await deps.teamHours(accountId), at) : undefined;
  if (!back) return message;
  return `${message} ${teamBackText({ ...DEFAULT_SETTINGS, ...channel.settings }.aiLang, back.weekday, back.time)}`;
}

/**
 * The handoff (docs/architecture.md, Handoff to the team), after the handoff message in the reply's transaction: the agent
 * pauses itself in the chat, the chat needs a human, `chat_handed_off` goes to the event feed (never to a webhook),
 * the handoff's summary (issue #44) and the model's reason, when it gave one, are private notes for the team, and
 * the team is alerted (the alerts read the summary): at once, or after the channel's model wrote the summary.
 */
async function recordHandoff(
  { chatsStore, notesStore, alerts, messagesStore, modelSummaries }: Pick<AgentWritesDeps, 'chatsStore' | 'notesStore' | 'alerts' | 'messagesStore' | 'modelSummaries'>,
  tx: Executor,
  chat: ChatRow,
  channel: Pick<ChannelRow, 'name' | 'kind' | 'agentEngine'>,
  handoff: NonNullable<AgentAnswer['handoff']>,
  now: Date,
): Promise<void> {
  const updated = await chatsStore(tx).update(chat.accountId, chat.id, { paused: true, needsHuman: true, updatedAt: now });
  const latest = updated ?? chat;
  await recordEvent(tx, {
    accountId: chat.accountId,
    channelId: chat.channelId,
    chatId: chat.id,
    payload: { event: 'chat_handed_off', chat: webhookChat(latest), reason: handoff.reason, timestamp: now.toISOString() },
  });
  let summaryId: string | undefined;
  if (notesStore) {
    const summary = handoffSummary({
      messages: await messagesStore(tx).listRecent(chat.accountId, chat.id, SUMMARY_MESSAGES),
      reason: handoff.reason,
      note: handoff.note,
      customer: { name: latest.dialogName, email: latest.email, identifier: latest.externalChatId, channel: `${channel.name} (${channel.kind})` },
    });
    summaryId = newId();
    await notesStore(tx).insert({
      id: summaryId,
      accountId: chat.accountId,
      chatId: chat.id,
      authorId: null,
      authorName: HANDOFF_NOTE_AUTHOR,
      text: summary.slice(0, NOTE_TEXT_MAX),
      kind: 'summary',
      createdAt: now,
    });
  }
  // The team hears of it wherever it is (issue #33): the alert webhook now, e-mails if no one is online; with a
  // model, once its summary is written (the job never calls the model inside this transaction).
  if (summaryId && modelSummaries && channel.agentEngine.kind === 'openai-compatible') await modelSummaries.enqueue(tx, chat, summaryId, handoff.reason);
  else await alerts?.needsPerson(tx, chat, handoff.reason);
  if (handoff.note && notesStore) {
    await notesStore(tx).insert({
      id: newId(),
      accountId: chat.accountId,
      chatId: chat.id,
      authorId: null,
      authorName: HANDOFF_NOTE_AUTHOR,
      text: `${HANDOFF_NOTE_PREFIX}${handoff.note}`.slice(0, NOTE_TEXT_MAX),
      createdAt: now,
    });
  }
}

export function createAgentWrites(deps: AgentWritesDeps) {
  const { db, clock, logger, agentStore, replyStore, messagesStore, chatsStore, channelsStore } = deps;
  const customerDelivery = deps.customerDelivery ?? NO_CUSTOMER_DELIVERY;

  /** The off-hours auto-reply, delivered to the customer like any reply (not an agent reply: it cannot be rated). */
  async function sendAutoReply(tx: Executor, channel: ChannelRow, chat: ChatRow, at: Date): Promise<void> {
    const text = channel.autoReply ?? '';
    const message = await messagesStore(tx).insert({
      id: newId(),
      accountId: chat.accountId,
      chatId: chat.id,
      role: 'assistant',
      origin: 'auto',
      senderName: null,
      text,
      createdAt: at,
    });
    if (!message) throw new Error('auto-reply was not stored');
    const touched = await messagesStore(tx).touchChat(chat.id, { text, at, unread: false });
    await agentStore(tx).markAutoReplied(chat.id, at);
    await recordNewMessage(tx, channelsStore, touched, message, at);
    await customerDelivery.enqueue(tx, touched, message);
  }

  /** Records the engine's failure and leaves the chat to the team (the messages stop waiting). */
  async function giveUp(chat: ChatRow, waiting: MessageRow[], error: Error): Promise<void> {
    logger.warn({ chatId: chat.id, channelId: chat.channelId, err: error.message }, 'agent reply failed; the chat is left for the team');
    await db.transaction(async (tx) => {
      await agentStore(tx).settle(waiting.map((message) => message.id));
      await agentStore(tx).insertFailure({
        id: newId(),
        accountId: chat.accountId,
        channelId: chat.channelId,
        chatId: chat.id,
        error: error.message.slice(0, 2000),
        createdAt: clock.now(),
      });
    });
  }

  /** A reply without a task trigger, in one statement (reply-store.ts). Whether it was stored. */
  async function writeReply(
    channel: ChannelRow,
    chat: ChatRow,
    waiting: MessageRow[],
    text: string,
    { fallback, greeting }: { fallback: boolean; greeting: boolean },
  ): Promise<boolean> {
    const at = clock.now();
    const messageId = newId();
    const toCustomer = isMessengerKind(chat.channelKind) && text.length > 0;
    const written = await replyStore.write({
      accountId: chat.accountId,
      chatId: chat.id,
      waitingIds: waiting.map((message) => message.id),
      messageId,
      text,
      fallback,
      greeting,
      at,
      webhookMessage: webhookMessage({ id: messageId, role: 'assistant', senderName: null, text, attachments: [], createdAt: at }),
      settings: { ...DEFAULT_SETTINGS, ...channel.settings },
      eventId: newId(),
      deliveryId: newId(),
      send: toCustomer ? { id: newId(), jobId: newId() } : null,
    });
    return written !== undefined;
  }

  /**
   * A reply that fires the task trigger or hands the chat to the team (or no reply at all): one transaction of
   * several statements. A handoff sends the channel's handoff message in place of the engine's text.
   */
  async function writeReplyStepByStep(channel: ChannelRow, chat: ChatRow, waiting: MessageRow[], answer: AgentAnswer): Promise<boolean> {
    const { accountId, id: chatId } = chat;
    const text = answer.handoff ? await handoffMessageAt(deps, channel, accountId, clock.now()) : answer.text;
    return db.transaction(async (tx) => {
      const settled = await agentStore(tx).settle(waiting.map((message) => message.id));
      if (settled.length === 0) return false; // another run answered them
      // Locked before the time is read: the reply, the trigger and a status change share a time in commit order.
      const current = await chatsStore(tx).lockForUpdate(accountId, chatId);
      // Paused or banned while the engine was thinking: the reply is dropped.
      if (!current || current.paused || current.banned) return false;
      const now = clock.now();
      let latest = current;
      if (text !== null) {
        const message = await messagesStore(tx).insert({
          id: newId(),
          accountId,
          chatId,
          role: 'assistant',
          origin: 'agent',
          senderName: null,
          text,
          fallback: !answer.handoff && (answer.fallback ?? false),
          handoff: answer.handoff !== undefined,
          handoffReason: answer.handoff?.reason ?? null,
          greeting: !answer.handoff && (answer.greeting ?? false),
          choices: answer.handoff ? null : (answer.choices ?? null),
          afterChoice: !answer.handoff && answer.picked !== undefined,
          actionPending: answer.handoff ? null : (answer.actionPending ?? null),
          afterAction: !answer.handoff && (answer.afterAction ?? false),
          createdAt: now,
        });
        if (!message) throw new Error('agent reply was not stored');
        latest = await messagesStore(tx).touchChat(chatId, { text, at: now, unread: false });
        await recordNewMessage(tx, channelsStore, latest, message, now);
        await customerDelivery.enqueue(tx, latest, message);
      }
      if (answer.taskComplete) {
        const last = waiting.at(-1) as MessageRow;
        await recordEvent(tx, {
          accountId,
          channelId: latest.channelId,
          chatId,
          payload: {
            event: 'task_trigger',
            chat: webhookChat(latest),
            message: webhookMessage(last),
            summary: answer.taskComplete.summary,
            settings: await settingsOf(tx, channelsStore, latest),
            timestamp: now.toISOString(),
          },
        });
        await recordTaskStatus(
          tx,
          { chatsStore, channelsStore, crmSync: deps.crmSync },
          { accountId, chatId, done: true, source: { type: 'trigger', operatorEmail: null }, at: () => now },
        );
      }
      if (answer.handoff) await recordHandoff(deps, tx, latest, channel, answer.handoff, now);
      if (answer.picked?.entryId && deps.learnPhrasing) await deps.learnPhrasing(tx, answer.picked.entryId, answer.picked.question, now, chatId);
      return true;
    });
  }

  return { sendAutoReply, giveUp, writeReply, writeReplyStepByStep };
}

export type AgentWrites = ReturnType<typeof createAgentWrites>;
