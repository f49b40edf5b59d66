// One run of an action, the same for both engines, the console's test call and replay (docs/architecture.md, Agent
// actions): the values checked, the request prepared so no value changes its shape, the call made (no database
// transaction is open meanwhile), then the run recorded (its values and error with the secrets masked) and counted
// in parley_action_calls_total{kind,outcome}. A `write` the customer did not confirm is recorded as `declined`.
import type { ActionKind, ActionOutcome } from '@parley/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Executor } from '../db/client.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { ActionClient, CallResult } from './action-client.ts';
import type { ActionDefinition } from './action-definition.ts';
import {
  checkValues,
  maskSecrets,
  maskedValues,
  prepareRequest,
  RequestShapeError,
  secretsOf,
  type ActionValues,
  type PreparedRequest,
  type ValueSource,
} from './action-request.ts';
import type { ActionsStore } from './actions-store.ts';

export interface RunContext {
  accountId: string;
  /** The chat the run belongs to; null for a test call or a replay. */
  chatId: string | null;
  source: ValueSource;
}

export interface ActionRunResult {
  outcome: ActionOutcome;
  status: number | null;
  ms: number | null;
  /** Why it did not succeed, secrets masked. */
  error: string | null;
  /** The shop's answer parsed (null when none, or not JSON). */
  json: unknown;
  /** The shop's answer as text, secrets masked. */
  text: string;
  /** The values sent; null when they were refused. */
  values: ActionValues | null;
  /** The request as prepared (null when the values were refused). */
  request: PreparedRequest | null;
}

export interface ActionRunnerDeps {
  store: (executor: Executor) => Pick<ActionsStore, 'insertRun'>;
  db: Executor;
  client: Pick<ActionClient, 'call'>;
  clock: Clock;
  /** parley_action_calls_total (metrics/metrics.ts `actionCall`). */
  metrics: { actionCall(kind: ActionKind, outcome: ActionOutcome): void };
  logger: Pick<FastifyBaseLogger, 'info'>;
}

export function createActionRunner({ store, db, client, clock, metrics, logger }: ActionRunnerDeps) {
  async function record(action: ActionDefinition, context: RunContext, values: ActionValues, result: Pick<ActionRunResult, 'outcome' | 'status' | 'ms' | 'error'>): Promise<void> {
    const secrets = secretsOf(action);
    await store(db).insertRun({
      id: newId(),
      accountId: context.accountId,
      actionId: action.id,
      chatId: context.chatId,
      parameters: maskedValues(values, secrets),
      status: result.status,
      ms: result.ms,
      outcome: result.outcome,
      error: result.error === null ? null : result.error.slice(0, 2000),
      createdAt: clock.now(),
    });
    metrics.actionCall(action.kind, result.outcome);
    logger.info({ actionId: action.id, chatId: context.chatId, outcome: result.outcome, status: result.status, ms: result.ms }, 'action run');
  }

  /** Values refused before any call: recorded as `invalid` (the values kept are those that passed, none here). */
  async function refuse(action: ActionDefinition, context: RunContext, given: ActionValues, reason: string): Promise<ActionRunResult> {
    const error = maskSecrets(reason, secretsOf(action));
    await record(action, context, given, { outcome: 'invalid', status: null, ms: null, error });
    return { outcome: 'invalid', status: null, ms: null, error, json: null, text: '', values: null, request: null };
  }

  return {
    /** Checks the values, calls the shop and records the run. `given`: the values by name (strings or numbers). */
    async run(action: ActionDefinition, given: Readonly<Record<string, unknown>>, context: RunContext): Promise<ActionRunResult> {
      const shown = Object.fromEntries(Object.entries(given).filter((entry): entry is [string, string | number] => typeof entry[1] === 'string' || typeof entry[1] === 'number'));
      const checked = checkValues(action, given, context.source);
      if (!checked.ok) return refuse(action, context, shown, checked.reason);
      let request: PreparedRequest;
      try {
        request = prepareRequest(action, checked.values);
      } catch (error) {
        if (error instanceof RequestShapeError) return refuse(action, context, checked.values, error.message);
        throw error;
      }
      const call: CallResult = await client.call(request, action.timeoutMs);
      const secrets = secretsOf(action);
      const error = call.error === null ? null : maskSecrets(call.error, secrets);
      await record(action, context, checked.values, { outcome: call.outcome, status: call.status, ms: call.ms, error });
      return { outcome: call.outcome, status: call.status, ms: call.ms, error, json: call.json, text: maskSecrets(call.text, secrets), values: checked.values, request };
    },

    /** The customer did not confirm a `write`: nothing is sent, the run is recorded as `declined`. */
    async decline(action: ActionDefinition, values: ActionValues, context: RunContext): Promise<void> {
      await record(action, context, values, { outcome: 'declined', status: null, ms: null, error: null });
    },

    /** Checks the values and prepares the request without calling (a `write` the test shows unsent). */
    preview(action: ActionDefinition, given: Readonly<Record<string, unknown>>, source: ValueSource): { request: PreparedRequest } | { reason: string } {
      const checked = checkValues(action, given, source);
      if (!checked.ok) return { reason: checked.reason };
      try {
        return { request: prepareRequest(action, checked.values) };
      } catch (error) {
        if (error instanceof RequestShapeError) return { reason: error.message };
        throw error;
      }
    },
  };
}

export type ActionRunner = ReturnType<typeof createActionRunner>;
