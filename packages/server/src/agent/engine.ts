// The one interface every agent engine implements (DESIGN.md, Agent engines): given a chat's recent messages and
// the customer's messages waiting for an answer, say what to reply and whether the task is complete.
import type { AgentSettings, GivenPassage } from '@parley/contracts';
import type { StoredAgentEngine, StoredAttachment } from '../db/schema.ts';

export interface AgentMessage {
  role: 'user' | 'assistant';
  text: string;
  attachments: StoredAttachment[];
}

export interface AgentChannel {
  settings: AgentSettings;
  knowledgeBaseId: string | null;
  engine: StoredAgentEngine;
  /** The openai-compatible engine's API key (never shown, never logged). */
  apiKey: string | null;
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
}

export interface AgentAnswer {
  /** The reply; null for none. */
  text: string | null;
  /** The agent decided its task is complete (the task trigger). */
  taskComplete: { summary: string | null } | null;
  /** The engine had no answer and sent its fallback sentence (counted in the console's overview). */
  fallback?: boolean;
  /** The document passages the model was given with the question (the console's `Try the agent` shows them). */
  passages?: GivenPassage[];
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
