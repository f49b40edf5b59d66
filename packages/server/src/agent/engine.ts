// The one interface every agent engine implements (docs/architecture.md, Agent engines): given a chat's recent messages and
// the customer's messages waiting for an answer, say what to reply and whether the task is complete.
import type { AgentSettings, GivenPassage, HandoffReason } from '@parley/contracts';
import type { ActionDefinition } from '../actions/action-definition.ts';
import type { ActionRunResult } from '../actions/action-runner.ts';
import type { StoredActionPending, StoredAgentEngine, StoredAttachment, StoredChoices } from '../db/schema.ts';

export interface AgentMessage {
  role: 'user' | 'assistant';
  text: string;
  attachments: StoredAttachment[];
  /**
   * For the agent's own replies: what it was (the knowledge-base engine counts fallbacks in a row; `asked`: a question
   * about an action, which neither counts nor breaks the run, like a clarification).
   */
  agentReply?: 'answered' | 'fallback' | 'handoff' | 'clarified' | 'asked';
  /** For a clarification (the knowledge-base engine's clarifying choices): the options it offered. */
  choices?: StoredChoices;
  /** For a question about an action: what the customer's next message answers. */
  actionPending?: StoredActionPending;
}

/** A run the turn did not make (a replay: a `write`, or a `read` without `callReadActions`). */
export interface SkippedRun {
  outcome: 'skipped';
}

/**
 * The actions of a turn (docs/architecture.md, Agent actions): the channel's usable ones, the chat's verified identity,
 * and runs bound to the chat (recorded with it, never inside a transaction).
 */
export interface TurnActions {
  /** The channel's enabled actions of the account. */
  list: readonly ActionDefinition[];
  /** The chat's verified identity (a widget's verified `identifier`, a messenger's user id); null: none. */
  identity: string | null;
  /** A knowledge entry's action, when it is one of `list`. */
  ofEntry(entryId: string): Promise<ActionDefinition | undefined>;
  run(action: ActionDefinition, given: Readonly<Record<string, unknown>>): Promise<ActionRunResult | SkippedRun>;
  /** The customer did not confirm a `write`. */
  decline(action: ActionDefinition, values: Record<string, string | number>): Promise<void>;
}

export interface AgentChannel {
  settings: AgentSettings;
  knowledgeBaseId: string | null;
  engine: StoredAgentEngine;
  /** The openai-compatible engine's API key (never shown, never logged). */
  apiKey: string | null;
  /** The knowledge-base engine hands off instead of its n-th fallback in a row; 0: never. */
  handoffAfterFallbacks: number;
  /** The knowledge-base engine offers at most this many options when unsure; 0: never asks. */
  clarifyChoices: number;
  /** The sentence before the options; null: the default in `aiLang`. */
  clarifyPrompt: string | null;
}

export interface AgentTurn {
  accountId: string;
  channel: AgentChannel;
  /** Earlier messages of the chat, oldest first: context. */
  history: AgentMessage[];
  /** The customer's messages to answer, oldest first (a burst is answered at once). */
  pending: AgentMessage[];
  /** Nothing precedes the pending messages: they open the chat. */
  firstMessage: boolean;
  /** The actions the agent may use in this turn; none when the channel lists none. */
  actions?: TurnActions;
}

export interface AgentAnswer {
  /** The reply; null for none. */
  text: string | null;
  /** The agent decided its task is complete (the task trigger). */
  taskComplete: { summary: string | null } | null;
  /** The engine had no answer and sent its fallback sentence (counted in the console's overview). */
  fallback?: boolean;
  /** The reply is the channel's greeting (no answer: a conversation it alone replied to is `unanswered`). */
  greeting?: boolean;
  /**
   * The agent hands the chat to the team (docs/architecture.md, Handoff to the team): the channel's handoff message is sent
   * instead of `text`, and the chat is paused and needs a human. `note`: the model's reason, for the team.
   */
  handoff?: { reason: HandoffReason; note?: string | null };
  /** A clarification: the options offered (the reply's text lists them); the customer's next message may pick one. */
  choices?: StoredChoices;
  /**
   * The answer to the customer's pick of a clarification's options: `question` (the customer's question that led
   * to the clarification) is kept as a learned phrasing of `entryId` (none for a passage).
   */
  picked?: { entryId: string | null; question: string };
  /** The document passages the model was given with the question (the console's `Try the agent` shows them). */
  passages?: GivenPassage[];
  /** The reply asks about an action (a parameter, or a yes to a `write`): the next customer message answers it. */
  actionPending?: StoredActionPending;
  /** The reply gives an action's answer (a successful call): reports count the conversation as resolved with an action. */
  afterAction?: boolean;
  /** Replay: the reply needed an action's answer that was not called (the reply is null). */
  actionSkipped?: boolean;
}

export interface AgentEngine {
  answer(turn: AgentTurn): Promise<AgentAnswer>;
}

/** The engine could not answer (after its retries): the chat is left for the team. */
export class AgentEngineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentEngineError';
  }
}
