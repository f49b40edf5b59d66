// What both engines share about actions in a chat (docs/architecture.md, Agent actions): the question a reply left
// open (kept with that reply, `messages.action_pending`, so a restart between the question and the answer changes
// nothing), the server's own question before a `write`, and the values found in a customer's message.
import type { StoredActionParameter, StoredActionPending } from '../../db/schema.ts';
import type { ActionDefinition } from '../../actions/action-definition.ts';
import { typedValue, VALUE_MAX, type ActionValue, type ActionValues } from '../../actions/action-request.ts';
import { actionConfirmText } from '../agent-texts.ts';
import type { AgentMessage } from '../engine.ts';

/** Trimmed around a token of a message (the no-model path's values). */
const TOKEN_EDGES = /^[,.;:!?()"']+|[,.;:!?()"']+$/g;

/** The question about an action that the chat's last reply (of the agent or the team) left open, if it did. */
export function pendingAction(history: readonly AgentMessage[]): StoredActionPending | undefined {
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const message = history[i];
    if (message?.role === 'assistant') return message.actionPending;
  }
  return undefined;
}

/** The message's tokens: text between spaces, surrounding `,.;:!?()"'` trimmed. */
export function tokensOf(text: string): string[] {
  return text
    .split(/\s+/)
    .map((token) => token.replace(TOKEN_EDGES, ''))
    .filter((token) => token.length > 0);
}

/**
 * The parameter's value in a customer's message: the first token that is a valid value (a `pattern` matched whole, a
 * number, one of the enum's values). A string parameter with no pattern is never guessed from a question; as the
 * answer to its own question (`answer`), the whole message is its value.
 */
export function valueIn(parameter: StoredActionParameter, text: string, answer: boolean): ActionValue | undefined {
  const canGuess = parameter.pattern !== undefined || parameter.type !== 'string';
  if (canGuess) {
    for (const token of tokensOf(text)) {
      const typed = typedValue(parameter, token);
      if ('value' in typed) return typed.value;
    }
  }
  const whole = text.trim();
  if (answer && whole.length > 0 && whole.length <= VALUE_MAX) {
    const typed = typedValue(parameter, whole);
    if ('value' in typed) return typed.value;
  }
  return undefined;
}

/** The values of the action's customer parameters found in a message (those not found are left out). */
export function valuesIn(action: ActionDefinition, text: string): ActionValues {
  const values: ActionValues = {};
  for (const parameter of action.parameters) {
    if (parameter.source !== 'customer') continue;
    const value = valueIn(parameter, text, false);
    if (value !== undefined) values[parameter.name] = value;
  }
  return values;
}

/**
 * The message without the tokens that are values of the actions' parameters (an order number, an enum's value): what
 * the knowledge base is asked, so "where's my order 10482?" reads as the question it is.
 */
export function withoutValues(text: string, actions: readonly ActionDefinition[]): string {
  const guessed = guessedParameters(actions);
  if (guessed.length === 0) return text;
  const kept = text.split(/(\s+)/).map((part) => {
    const token = part.replace(TOKEN_EDGES, '');
    // The value goes, its punctuation stays: "10482?" leaves "?".
    return token.length > 0 && guessed.some((parameter) => 'value' in typedValue(parameter, token)) ? part.replace(token, '') : part;
  });
  return kept.join('').replace(/\(\s*\)/g, '').replace(/\s+([?!.,;:])/g, '$1').replace(/\s{2,}/g, ' ').trim();
}

/** Whether the text holds a value of one of the actions' parameters the customer gives (a token matching its pattern or type). */
export function holdsValue(text: string, actions: readonly ActionDefinition[]): boolean {
  const guessed = guessedParameters(actions);
  return text.split(/\s+/).some((part) => {
    const token = part.replace(TOKEN_EDGES, '');
    return token.length > 0 && guessed.some((parameter) => 'value' in typedValue(parameter, token));
  });
}

/** The parameters whose values may be read in a customer's message: the customer's, with a pattern or a non-string type. */
function guessedParameters(actions: readonly ActionDefinition[]) {
  return actions.flatMap((action) => action.parameters).filter((p) => p.source === 'customer' && (p.pattern !== undefined || p.type !== 'string'));
}

/** The first sentence of a description, as it reads inside "Shall I … ?" (English: lower-case first letter). */
function asClause(description: string, aiLang: string, name: string): string {
  const first = (description.trim().split(/(?<=[.!?])\s/)[0] ?? '').replace(/[\s.!?:;]+$/, '');
  const clause = first || name.replaceAll('_', ' ');
  return aiLang.toLowerCase().startsWith('en') ? clause.charAt(0).toLowerCase() + clause.slice(1) : clause;
}

/** The server's own question before a `write` ("Shall I <description> for <parameters>? Reply yes or no", in aiLang). */
export function confirmQuestion(action: ActionDefinition, values: ActionValues, aiLang: string): string {
  const shown = action.parameters
    .filter((parameter) => parameter.source === 'customer' && values[parameter.name] !== undefined)
    .map((parameter) => `${parameter.name.replaceAll('_', ' ')} ${values[parameter.name]}`);
  return actionConfirmText(aiLang, asClause(action.description, aiLang, action.name), shown.length > 0 ? shown.join(', ') : null);
}
