// The openai-compatible engine's actions (docs/architecture.md, Agent actions): each enabled action of the channel is a
// function tool (its name, description and the JSON Schema of its `customer` parameters; one needing a verified
// identity only in a chat that has one). Arguments are checked before any call: a bad one goes back to the model as the
// tool's result. A `read` runs and its JSON answer (cut to 8 KB) is the result. A `write` never runs on the model's
// word: the server asks the customer its own yes-or-no question, and the next customer message decides.
import type { StoredActionPending } from '../../db/schema.ts';
import type { ActionDefinition } from '../../actions/action-definition.ts';
import type { ActionRunResult } from '../../actions/action-runner.ts';
import { checkValues, needsIdentity, type ActionValues } from '../../actions/action-request.ts';
import { isYes } from '../agent-texts.ts';
import type { AgentAnswer, AgentMessage, SkippedRun, TurnActions } from '../engine.ts';
import { confirmQuestion, pendingAction } from './action-turns.ts';

/** Action runs the model may make for one customer message (the confirmed `write` of a yes included). */
export const ACTION_RUNS_PER_MESSAGE = 3;
/** The most of a response the model is given. */
export const TOOL_RESULT_BYTES = 8 * 1024;
/** The id of the tool call put back into the conversation when the customer answers the server's question. */
export const CONFIRMED_CALL_ID = 'call_confirmed_action';

export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The JSON Schema of an action's `customer` parameters (the model never sees a `verified` one). */
export function parametersSchema(action: ActionDefinition): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const parameter of action.parameters) {
    if (parameter.source !== 'customer') continue;
    const property: Record<string, unknown> = {
      type: parameter.type === 'number' ? 'number' : 'string',
      ...(parameter.description ? { description: parameter.description } : {}),
      ...(parameter.type === 'enum' ? { enum: parameter.values ?? [] } : {}),
      ...(parameter.pattern !== undefined ? { pattern: `^(?:${parameter.pattern})$` } : {}),
    };
    properties[parameter.name] = property;
    if (parameter.required) required.push(parameter.name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The actions offered to the model in this chat, by tool name. */
export function offeredActions(actions: TurnActions): Map<string, ActionDefinition> {
  return new Map(actions.list.filter((action) => !needsIdentity(action) || actions.identity !== null).map((action) => [action.name, action]));
}

export function actionTool(action: ActionDefinition): FunctionTool {
  return { type: 'function', function: { name: action.name, description: action.description || action.name, parameters: parametersSchema(action) } };
}

function cut(text: string, bytes: number): string {
  const buffer = Buffer.from(text);
  return buffer.length <= bytes ? text : buffer.subarray(0, bytes).toString('utf8').replace(/\uFFFD$/, '');
}

/** What the model is told of a run: the JSON answer (cut to 8 KB), else the outcome and the shop's words. */
export function toolResultOf(run: ActionRunResult | SkippedRun): string {
  if (run.outcome === 'skipped') return JSON.stringify({ error: 'not called: this is a replay of past conversations' });
  if (run.outcome === 'ok') return cut(run.text.trim() === '' ? 'null' : run.text, TOOL_RESULT_BYTES);
  return cut(JSON.stringify({ outcome: run.outcome, status: run.status, error: run.error, answer: run.text.slice(0, 1000) || undefined }), TOOL_RESULT_BYTES);
}

/** A tool call's outcome: its result for the model, or the server's own question before a `write`. */
export type ToolCallOutcome = { result: string; counted: boolean; ok: boolean } | { confirm: AgentAnswer };

/** The model called an action's tool with `args` (JSON text). */
export async function callActionTool(actions: TurnActions, aiLang: string, action: ActionDefinition, args: string): Promise<ToolCallOutcome> {
  let given: unknown;
  try {
    given = JSON.parse(args || '{}');
  } catch {
    return { result: 'Invalid arguments: they are not JSON. Nothing was called.', counted: false, ok: false };
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    return { result: 'Invalid arguments: they must be a JSON object. Nothing was called.', counted: false, ok: false };
  }
  const values = given as Record<string, unknown>;
  const checked = checkValues(action, values, { kind: 'chat', identity: actions.identity });
  if (!checked.ok) {
    // Recorded as an `invalid` run; the shop is never called.
    const run = await actions.run(action, values);
    return { result: `Invalid arguments: ${checked.reason}. Nothing was called; ask the customer if a value is missing or wrong.`, counted: run.outcome !== 'skipped', ok: false };
  }
  if (action.kind === 'write') {
    const customer: ActionValues = Object.fromEntries(Object.entries(checked.values).filter(([name]) => action.parameters.some((p) => p.name === name && p.source === 'customer')));
    const actionPending: StoredActionPending = { actionId: action.id, values: customer, awaiting: { kind: 'confirm' }, toolCall: { name: action.name, arguments: args } };
    return { confirm: { text: confirmQuestion(action, customer, aiLang), taskComplete: null, actionPending } };
  }
  const run = await actions.run(action, values);
  return { result: toolResultOf(run), counted: run.outcome !== 'skipped', ok: run.outcome === 'ok' };
}

/** The customer's answer to the server's question about a `write`: the tool call and its result, for the model. */
export interface ResumedCall {
  call: { id: string; type: 'function'; function: { name: string; arguments: string } };
  result: string;
  ok: boolean;
}

/** When the chat's last reply asked the customer to confirm a model's `write`: run it on a yes, decline it otherwise. */
export async function resumeConfirmation(actions: TurnActions, history: readonly AgentMessage[], answer: string, aiLang: string): Promise<ResumedCall | undefined> {
  const open = pendingAction(history);
  if (open?.awaiting.kind !== 'confirm' || !open.toolCall) return undefined;
  const action = actions.list.find((candidate) => candidate.id === open.actionId);
  if (!action) return undefined;
  const call = { id: CONFIRMED_CALL_ID, type: 'function' as const, function: open.toolCall };
  if (!isYes(answer, aiLang)) {
    await actions.decline(action, open.values);
    return { call, result: 'The customer did not confirm, so nothing was done. Tell them it was not done.', ok: false };
  }
  const run = await actions.run(action, open.values);
  return { call, result: toolResultOf(run), ok: run.outcome === 'ok' };
}
