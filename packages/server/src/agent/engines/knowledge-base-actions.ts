// The knowledge-base engine's actions, no model (docs/architecture.md, Agent actions): an entry that matched (directly or
// by a clarifying pick) and has an action fills the action's parameters from the customer's message, asks the
// `prompt` of each one still missing (the next message answers; an answer that cannot be read is asked again once,
// then the turn falls back), asks the server's own yes-or-no before a `write`, runs it, and sends the action's
// `answer` rendered with the response — or its `errorAnswer`, or hands the chat to the team. A `verified` parameter
// with no verified identity in the chat hands it to the team at once.
import type { StoredActionPending } from '../../db/schema.ts';
import type { ActionDefinition } from '../../actions/action-definition.ts';
import { needsIdentity, type ActionValues } from '../../actions/action-request.ts';
import { renderAnswer } from '../../actions/answer-template.ts';
import { actionAskText, actionDeclinedText, actionRetryText, isYes } from '../agent-texts.ts';
import type { AgentAnswer, AgentChannel, TurnActions } from '../engine.ts';
import { confirmQuestion, valueIn, valuesIn } from './action-turns.ts';

/** Answers to a parameter's question that could not be read before the turn falls back. */
export const PARAMETER_TRIES = 2;

export interface KbActionTurn {
  channel: AgentChannel;
  actions: TurnActions;
  /** This turn's fallback (or the handoff it becomes after `handoffAfterFallbacks`). */
  fallback(): AgentAnswer;
}

function handOff(note: string): AgentAnswer {
  return { text: null, taskComplete: null, handoff: { reason: 'fallbacks', note } };
}

/** Asks for a missing parameter (its `prompt`, else a default sentence), again after an answer that could not be read. */
function ask(turn: KbActionTurn, action: ActionDefinition, values: ActionValues, name: string, tries: number): AgentAnswer {
  const parameter = action.parameters.find((p) => p.name === name);
  const aiLang = turn.channel.settings.aiLang;
  const question = parameter?.prompt ?? actionAskText(aiLang, parameter?.description.trim() || name.replaceAll('_', ' '));
  const text = tries > 0 ? `${actionRetryText(aiLang)} ${question}` : question;
  const actionPending: StoredActionPending = { actionId: action.id, values, awaiting: { kind: 'parameter', name, tries } };
  return { text, taskComplete: null, actionPending };
}

/** Runs the action and says what came of it. */
async function run(turn: KbActionTurn, action: ActionDefinition, values: ActionValues): Promise<AgentAnswer> {
  const result = await turn.actions.run(action, values);
  if (result.outcome === 'skipped') return { text: null, taskComplete: null, actionSkipped: true };
  if (result.outcome === 'ok') {
    const text = renderAnswer(action.answer, result.json);
    if (text) return { text, taskComplete: null, afterAction: true };
  }
  if (action.errorAnswer !== null) return { text: action.errorAnswer, taskComplete: null };
  return handOff(`The action ${action.name} did not give an answer (${result.outcome}${result.error ? `: ${result.error}` : ''}).`);
}

/** Asks for the first missing required parameter, else the yes before a `write`, else runs. */
async function proceed(turn: KbActionTurn, action: ActionDefinition, values: ActionValues): Promise<AgentAnswer> {
  const missing = action.parameters.find((p) => p.source === 'customer' && p.required && values[p.name] === undefined);
  if (missing) return ask(turn, action, values, missing.name, 0);
  if (action.kind === 'write') {
    const actionPending: StoredActionPending = { actionId: action.id, values, awaiting: { kind: 'confirm' } };
    return { text: confirmQuestion(action, values, turn.channel.settings.aiLang), taskComplete: null, actionPending };
  }
  return run(turn, action, values);
}

/** An entry with this action matched the customer's `text`. */
export async function startAction(turn: KbActionTurn, action: ActionDefinition, text: string): Promise<AgentAnswer> {
  if (needsIdentity(action) && turn.actions.identity === null) {
    return handOff(`The action ${action.name} needs a verified customer, and this chat has no verified identity.`);
  }
  return proceed(turn, action, valuesIn(action, text));
}

/**
 * The customer's answer to the question an earlier reply left open; undefined when that question no longer stands
 * (its action was deleted, disabled or taken off the channel): the message is then a new question.
 */
export async function answerPending(turn: KbActionTurn, pending: StoredActionPending, text: string): Promise<AgentAnswer | undefined> {
  const action = turn.actions.list.find((candidate) => candidate.id === pending.actionId);
  if (!action) return undefined;
  const { awaiting } = pending;
  if (awaiting.kind === 'confirm') {
    if (isYes(text, turn.channel.settings.aiLang)) return run(turn, action, pending.values);
    await turn.actions.decline(action, pending.values);
    return { text: actionDeclinedText(turn.channel.settings.aiLang), taskComplete: null };
  }
  const parameter = action.parameters.find((p) => p.name === awaiting.name);
  if (!parameter) return undefined;
  const value = valueIn(parameter, text, true);
  if (value === undefined) {
    const tries = awaiting.tries + 1;
    return tries >= PARAMETER_TRIES ? turn.fallback() : ask(turn, action, pending.values, parameter.name, tries);
  }
  return proceed(turn, action, { ...pending.values, [parameter.name]: value });
}
