// The agent's part in the message flow (spec, send-message-universal rules 1 and 3; docs/architecture.md, Agent engines).
// When a customer message is stored, `planFor` decides in the same transaction: the agent answers (the message
// waits for it and a reply job keyed by the chat is queued: one reply at a time per chat, in order), the
// auto-reply goes out (outside working hours, once per off-hours period), or it stays silent. The reply job
// asks the channel's engine outside any transaction (unless the customer asks for a person), then stores the reply,
// its new_messages event and, when the task is complete, task_trigger and the status change, and when the agent
// hands the chat to the team, the pause, needsHuman and chat_handed_off, in one transaction (agent-writes.ts).
import type { ChatRow } from '../chats/chats-store.ts';
import { DEFAULT_SETTINGS } from '../channels/channels-service.ts';
import type { ChannelRow } from '../channels/channels-store.ts';
import { NO_CUSTOMER_DELIVERY } from '../messages/customer-delivery.ts';
import type { Executor } from '../db/client.ts';
import { Errors } from '../errors.ts';
import type { EventsCommitted } from '../events/outbox.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import { NO_METRICS, type AppMetrics } from '../kernel/metrics.ts';
import type { AgentPlan } from '../messages/message-ingest.ts';
import type { MessageRow } from '../messages/messages-store.ts';
import { createAgentWrites, handoffMessageOf, type AgentWritesDeps } from './agent-writes.ts';
import { asksForPerson } from './handoff/person-request.ts';
import { AgentEngineError, type AgentAnswer, type AgentChannel, type AgentTurn, type AgentEngine, type AgentMessage, type TurnActions } from './engine.ts';
import type { AgentActions } from '../actions/agent-actions.ts';
import { chatTurnActions, replayTurnActions } from './turn-actions.ts';
import { autoReplyDue, isOpen } from '../channels/working-hours.ts';
import type { AgentFailure } from '@parley/contracts';

/** Messages before the waiting ones that the engine gets as context. */
const HISTORY = 20;

export interface AgentServiceDeps extends AgentWritesDeps {
  queue: Pick<JobQueue, 'enqueue' | 'wake'>;
  engines: Record<AgentChannel['engine']['kind'], AgentEngine>;
  eventsCommitted?: EventsCommitted;
  /** Each reply job that ended with a reply or a failure is counted (parley_agent_replies_total). */
  metrics?: Pick<AppMetrics, 'agentReply'>;
  /** Told when the reply job starts and stops preparing a reply (the chat widget's typing indicator). */
  replying?: (chat: ChatRow, replying: boolean) => void;
  /** The channels' actions (docs/architecture.md, Agent actions); absent: no engine is offered any. */
  actions?: AgentActions;
}

/** The channel's agent may answer at all: switched on, and agent responses not disabled. */
function agentEnabled(channel: ChannelRow): boolean {
  return ({ ...DEFAULT_SETTINGS, ...channel.settings }).isActive && !channel.disableAgentResponses;
}

function agentChannel(channel: ChannelRow): AgentChannel {
  return {
    settings: { ...DEFAULT_SETTINGS, ...channel.settings },
    knowledgeBaseId: channel.knowledgeBaseId,
    engine: channel.agentEngine,
    apiKey: channel.agentApiKey,
    handoffAfterFallbacks: channel.handoffAfterFallbacks,
    clarifyChoices: channel.clarifyChoices,
    clarifyPrompt: channel.clarifyPrompt,
  };
}

function toAgentMessage(row: MessageRow): AgentMessage {
  const message: AgentMessage = { role: row.role === 'user' ? 'user' : 'assistant', text: row.text, attachments: row.attachments };
  if (row.origin === 'agent') {
    message.agentReply = row.handoff ? 'handoff' : row.fallback ? 'fallback' : row.choices ? 'clarified' : row.actionPending ? 'asked' : 'answered';
  }
  if (row.choices) message.choices = row.choices;
  if (row.actionPending) message.actionPending = row.actionPending;
  return message;
}

/** The outcome of a reply as `parley_agent_replies_total` counts it. */
function outcomeOf(answer: AgentAnswer): 'answered' | 'fallback' | 'handoff' {
  return answer.handoff ? 'handoff' : answer.fallback ? 'fallback' : 'answered';
}

/**
 * The engine's answer to a turn, unless the customer asks for a person (docs/architecture.md, Handoff to the team: phrases in
 * the channel's language, both engines, before every other rule): then the chat is handed over without asking it.
 */
async function answerOf(engine: AgentEngine, turn: AgentTurn): Promise<AgentAnswer> {
  const asked = turn.pending.some((message) => asksForPerson(message.text, turn.channel.settings.aiLang));
  if (asked) return { text: null, taskComplete: null, handoff: { reason: 'customer_request' } };
  return engine.answer(turn);
}

export const replyJobKey = (chatId: string) => `agent.reply:${chatId}`;

export function createAgentService(deps: AgentServiceDeps) {
  const { db, clock, queue, engines, agentStore, replyStore, channelsStore } = deps;
  const eventsCommitted = deps.eventsCommitted ?? (() => {});
  const customerDelivery = deps.customerDelivery ?? NO_CUSTOMER_DELIVERY;
  const metrics = deps.metrics ?? NO_METRICS;
  const replying = deps.replying ?? (() => {});
  const { sendAutoReply, giveUp, writeReply, writeReplyStepByStep } = createAgentWrites(deps);

  /** Writes the engine's answer: in one statement when it is a plain reply, else step by step. Whether it was sent. */
  async function write(channel: ChannelRow, chat: ChatRow, waiting: MessageRow[], answer: AgentAnswer): Promise<boolean> {
    const plain = !answer.handoff && !answer.choices && !answer.picked && !answer.actionPending && !answer.afterAction;
    if (answer.taskComplete === null && answer.text !== null && plain) {
      return writeReply(channel, chat, waiting, answer.text, { fallback: answer.fallback ?? false, greeting: answer.greeting ?? false });
    }
    return writeReplyStepByStep(channel, chat, waiting, answer);
  }

  /** The actions the channel's agent may use in the chat, with its verified identity; none when it lists none. */
  async function chatActions(channel: ChannelRow, chat: ChatRow): Promise<TurnActions | undefined> {
    if (!deps.actions || channel.actionIds.length === 0) return undefined;
    const list = await deps.actions.forChannel(channel.accountId, channel.actionIds);
    if (list.length === 0) return undefined;
    const identity = await deps.actions.identityOf(chat);
    return chatTurnActions(deps.actions, channel.accountId, chat.id, list, identity);
  }

  /**
   * The plan for a customer message of the channel at `at` before its chat is known: `answer` (unless the chat is
   * paused or banned), `silent`, or `autoReply` when the auto-reply may be due (the chat's last one decides).
   */
  function channelPlan(channel: ChannelRow, at: Date): AgentPlan {
    if (!agentEnabled(channel)) return 'silent';
    if (isOpen(channel.workingHours, at)) return 'answer';
    return channel.autoReply !== null && channel.workingHours !== null ? 'autoReply' : 'silent';
  }

  /** Rule 3: silent when the agent is off, responses are disabled or the chat is paused; hours decide the rest. */
  function planFor(channel: ChannelRow, chat: ChatRow, at: Date): AgentPlan {
    if (chat.paused || chat.banned) return 'silent';
    const plan = channelPlan(channel, at);
    if (plan !== 'autoReply') return plan;
    return channel.workingHours !== null && autoReplyDue(channel.workingHours, chat.autoReplyAt, at) ? 'autoReply' : 'silent';
  }

  return {
    channelPlan,
    planFor,

    /**
     * After a customer message was stored (`awaitingAgent` set when the plan is `answer`), in its transaction:
     * queues the reply job or sends the auto-reply. The caller wakes the queue and the deliveries after commit.
     */
    async afterCustomerMessage(tx: Executor, plan: AgentPlan, channel: ChannelRow, chat: ChatRow, at: Date): Promise<void> {
      if (plan === 'answer') await queue.enqueue(tx, 'agent.reply', { accountId: chat.accountId, chatId: chat.id }, { key: replyJobKey(chat.id) });
      if (plan === 'autoReply') await sendAutoReply(tx, channel, chat, at);
    },

    wake: () => queue.wake(),

    /** The reply job: answers every waiting customer message of the chat at once. */
    async reply({ accountId, chatId }: { accountId: string; chatId: string }): Promise<void> {
      const startedAt = performance.now();
      const seconds = () => (performance.now() - startedAt) / 1000;
      const context = await replyStore.context(accountId, chatId, HISTORY);
      if (!context) return;
      const { chat, waiting, history } = context;
      const channel = await channelsStore(db).find(accountId, chat.channelId);
      // Switched off, paused or banned since the message came: the agent stays silent.
      if (!channel || planFor(channel, chat, clock.now()) !== 'answer') {
        await agentStore(db).settle(waiting.map((message) => message.id));
        return;
      }
      const engine = engines[channel.agentEngine.kind];
      replying(chat, true);
      try {
        let answer;
        try {
          answer = await answerOf(engine, {
            accountId,
            channel: agentChannel(channel),
            history: history.map(toAgentMessage),
            pending: waiting.map(toAgentMessage),
            firstMessage: history.length === 0,
            actions: await chatActions(channel, chat),
          });
        } catch (error) {
          if (!(error instanceof AgentEngineError)) throw error;
          await giveUp(chat, waiting, error);
          metrics.agentReply(channel.agentEngine.kind, 'failed', seconds());
          return;
        }
        const sent = await write(channel, chat, waiting, answer);
        if (sent) {
          metrics.agentReply(channel.agentEngine.kind, outcomeOf(answer), seconds());
          eventsCommitted();
          customerDelivery.wake();
          if (deps.crmSync) queue.wake();
        }
      } finally {
        replying(chat, false);
      }
    },

    /** Console: how the channel's agent answers a text, with no chat stored and no event (hours and switches aside). */
    /**
     * The console's `Try the agent`: the channel's agent answers `text`, storing and sending nothing. With
     * `clarifiedQuestion`, `text` answers that question's clarification: the question is asked again (no state is kept
     * between calls) and, when it is clarified, `text` is the customer's next message after it (a pick, `0`, or a new
     * question); when it is not clarified any more, `text` is asked alone.
     */
    async test(accountId: string, channelId: string, text: string, clarifiedQuestion?: string) {
      const channel = await channelsStore(db).find(accountId, channelId);
      if (!channel) throw Errors.channelNotFound();
      const engine = engines[channel.agentEngine.kind];
      const ask = (history: AgentMessage[], question: string) =>
        answerOf(engine, { accountId, channel: agentChannel(channel), history, pending: [{ role: 'user', text: question, attachments: [] }], firstMessage: history.length === 0 });
      try {
        const history: AgentMessage[] = [];
        if (clarifiedQuestion !== undefined) {
          const before = await ask([], clarifiedQuestion);
          if (before.choices) {
            history.push(
              { role: 'user', text: clarifiedQuestion, attachments: [] },
              { role: 'assistant', text: before.text ?? '', attachments: [], agentReply: 'clarified', choices: before.choices },
            );
          }
        }
        const answer = await ask(history, text);
        return {
          reply: answer.handoff ? handoffMessageOf(channel) : answer.text,
          taskComplete: answer.taskComplete !== null,
          summary: answer.taskComplete?.summary ?? null,
          passages: answer.passages ?? [],
          ...(answer.choices && !answer.handoff ? { choices: [...answer.choices.options.map((option) => option.label), answer.choices.other] } : {}),
        };
      } catch (error) {
        if (error instanceof AgentEngineError) throw Errors.agentEngineFailed(error.message);
        throw error;
      }
    },

    /**
     * Replay (issue #37): what the channel's agent as configured now would reply to a past customer question, asked
     * in the middle of a conversation (no greeting) — the path of `test`, sending and storing nothing, its switches
     * and hours aside. An engine failure throws AgentEngineError. Actions (issue #43): a `write` is never run, a `read`
     * only with `callReadActions`; those not run, and the one a question about an action is for, are `wouldCall`.
     * A reply that asks for an action's parameter or a yes is a question to the customer: `clarified`.
     */
    async evaluate(
      accountId: string,
      channel: ChannelRow,
      text: string,
      options: { callReadActions?: boolean } = {},
    ): Promise<{ reply: string | null; outcome: 'answered' | 'clarified' | 'handed_off' | 'fell_back'; wouldCall: string[] }> {
      const wouldCall: string[] = [];
      const list = deps.actions && channel.actionIds.length > 0 ? await deps.actions.forChannel(accountId, channel.actionIds) : [];
      const answer = await answerOf(engines[channel.agentEngine.kind], {
        accountId,
        channel: agentChannel(channel),
        history: [],
        pending: [{ role: 'user', text, attachments: [] }],
        firstMessage: false,
        ...(deps.actions && list.length > 0 ? { actions: replayTurnActions(deps.actions, accountId, list, options.callReadActions ?? false, wouldCall) } : {}),
      });
      const asked = answer.actionPending && list.find((action) => action.id === answer.actionPending?.actionId);
      if (asked) wouldCall.push(asked.name);
      const would = [...new Set(wouldCall)];
      if (answer.handoff) return { reply: handoffMessageOf(channel), outcome: 'handed_off', wouldCall: would };
      if (answer.choices || answer.actionPending) return { reply: answer.text, outcome: 'clarified', wouldCall: would };
      if (answer.actionSkipped) return { reply: null, outcome: 'answered', wouldCall: would };
      if (answer.fallback || answer.text === null) return { reply: answer.text, outcome: 'fell_back', wouldCall: would };
      return { reply: answer.text, outcome: 'answered', wouldCall: would };
    },

    async listFailures(accountId: string, filter: { channelId?: string; limit?: number }): Promise<{ failures: AgentFailure[] }> {
      const rows = await agentStore(db).listFailures(accountId, { channelId: filter.channelId, limit: filter.limit ?? 100 });
      return {
        failures: rows.map((row) => ({
          id: row.id,
          channelId: row.channelId,
          chatId: row.chatId,
          error: row.error,
          createdAt: row.createdAt.toISOString(),
        })),
      };
    },
  };
}

export type AgentService = ReturnType<typeof createAgentService>;
