// Actions of an account (docs/architecture.md, Agent actions), console side: create, change (partial; a secret header
// sent back as "••••" keeps the stored value), delete (channels stop offering it), read with secrets masked, the
// test call, the runs, the import from an OpenAPI document, and the runs of a chat for its console history.
import {
  ACTION_TIMEOUT_DEFAULT_MS,
  SECRET_MASK,
  type Action,
  type ActionHeaderInput,
  type ActionRun,
  type ActionTestResult,
  type CreateActionBody,
  type InboxAction,
  type OpenApiOperation,
  type UpdateActionBody,
} from '@parley/contracts';
import { diffChanges, MASK, recordAudit, type AuditChanges, type AuditContext } from '../audit/audit-record.ts';
import type { Database, Executor } from '../db/client.ts';
import { inSavepoint } from '../db/savepoint.ts';
import type { StoredActionParameter } from '../db/schema.ts';
import { DomainError, Errors } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { isUuid, newId } from '../lib/ids.ts';
import { checkAction, type ActionDefinition, type ActionFields, type ActionHeader } from './action-definition.ts';
import type { ActionRunner } from './action-runner.ts';
import type { ActionsStore, ActionRunRow } from './actions-store.ts';
import { renderAnswer } from './answer-template.ts';
import { actionsFromOpenApi, previewOpenApi } from './openapi-import.ts';

/** A test call shows at most this much of the shop's answer. */
export const SHOWN_ANSWER_BYTES = 8 * 1024;

/** The channels' side of a delete: each channel that offered the action gets its list without it (cache told). */
export interface ChannelActionLists {
  update(accountId: string, id: string, changes: { actionIds: string[]; updatedAt: Date }): Promise<unknown>;
}

export interface ActionsServiceDeps {
  db: Database;
  store: (executor: Executor) => ActionsStore;
  channels: (executor: Executor) => ChannelActionLists;
  runner: Pick<ActionRunner, 'run' | 'preview'>;
  clock: Clock;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: `http:` URLs are accepted. */
  allowHttp: boolean;
}

export function actionView(action: ActionDefinition): Action {
  return {
    id: action.id,
    name: action.name,
    description: action.description,
    kind: action.kind,
    method: action.method,
    url: action.url,
    headers: Object.fromEntries(action.headers.map((header) => [header.name, header.secret ? SECRET_MASK : header.value])),
    body: action.body,
    parameters: action.parameters,
    answer: action.answer,
    errorAnswer: action.errorAnswer,
    timeoutMs: action.timeoutMs,
    enabled: action.enabled,
    createdAt: action.createdAt.toISOString(),
    updatedAt: action.updatedAt.toISOString(),
  };
}

function runView(row: ActionRunRow): ActionRun {
  return {
    id: row.id,
    chatId: row.chatId,
    at: row.createdAt.toISOString(),
    parameters: row.parameters,
    status: row.status,
    ms: row.ms,
    outcome: row.outcome as ActionRun['outcome'],
    error: row.error,
  };
}

/** The headers as stored from the ones given; `"••••"` keeps the stored secret of that name. */
function headersOf(given: Record<string, ActionHeaderInput>, previous: readonly ActionHeader[]): ActionHeader[] {
  return Object.entries(given).map(([name, value]) => {
    const secret = typeof value === 'object';
    const text = typeof value === 'object' ? value.secret : value;
    if (text !== SECRET_MASK) return { name, value: text, secret };
    const stored = previous.find((header) => header.secret && header.name.toLowerCase() === name.toLowerCase());
    if (!stored) throw Errors.actionInvalid(`headers: ${name}: "${SECRET_MASK}" keeps a stored secret, and this action has none of this name`);
    return { name, value: stored.value, secret: true };
  });
}

/** An action's fields for the audit log: the changed ones, a secret header's value "••••" (a new secret shows as a change). */
function actionChanges(before: ActionFields | undefined, after: ActionFields | undefined): AuditChanges {
  const changes = diffChanges(before && { ...before }, after && { ...after });
  const masked = (fields: ActionFields | undefined) => fields?.headers.map((header) => (header.secret ? { ...header, value: MASK } : header)) ?? null;
  if (changes.headers) changes.headers = [masked(before), masked(after)];
  return changes;
}

const fieldsOf = (action: ActionDefinition): ActionFields => ({
  name: action.name,
  description: action.description,
  kind: action.kind,
  method: action.method,
  url: action.url,
  headers: action.headers,
  body: action.body,
  parameters: action.parameters,
  answer: action.answer,
  errorAnswer: action.errorAnswer,
  timeoutMs: action.timeoutMs,
  enabled: action.enabled,
});

const RUN_CURSOR = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)_([0-9a-f-]{36})$/;

export function createActionsService({ db, store, channels, runner, clock, allowHttp }: ActionsServiceDeps) {
  async function requireAction(accountId: string, id: string): Promise<ActionDefinition> {
    const action = isUuid(id) ? await store(db).find(accountId, id) : undefined;
    if (!action) throw Errors.actionNotFound();
    return action;
  }

  /** The audit event of an action's change, in its transaction (none for an update that changed nothing). */
  async function recorded(
    tx: Executor,
    audit: AuditContext,
    kind: 'action.created' | 'action.updated' | 'action.deleted',
    action: ActionDefinition,
    before: ActionFields | undefined,
    after: ActionFields | undefined,
  ): Promise<void> {
    const changes = actionChanges(before, after);
    if (kind === 'action.updated' && Object.keys(changes).length === 0) return;
    await recordAudit(tx, audit, { accountId: action.accountId, kind, target: { type: 'action', id: action.id, name: after?.name ?? action.name }, changes });
  }

  return {
    async list(accountId: string): Promise<{ actions: Action[] }> {
      return { actions: (await store(db).list(accountId)).map(actionView) };
    },

    async get(accountId: string, id: string): Promise<Action> {
      return actionView(await requireAction(accountId, id));
    },

    async create(accountId: string, body: CreateActionBody, audit: AuditContext): Promise<Action> {
      const fields: ActionFields = {
        name: body.name,
        description: body.description,
        kind: body.kind,
        method: body.method,
        url: body.url,
        headers: headersOf(body.headers ?? {}, []),
        body: body.body ?? null,
        parameters: (body.parameters ?? []) as StoredActionParameter[],
        answer: body.answer ?? '',
        errorAnswer: body.errorAnswer ?? null,
        timeoutMs: body.timeoutMs ?? ACTION_TIMEOUT_DEFAULT_MS,
        enabled: body.enabled ?? true,
      };
      checkAction(fields, { allowHttp });
      const created = await db.transaction(async (tx) => {
        const row = await inSavepoint(tx, (sp) => store(sp).insert({ ...fields, id: newId(), accountId, now: clock.now() }), (r) => r === undefined);
        if (row) await recorded(tx, audit, 'action.created', row, undefined, fields);
        return row;
      });
      if (!created) throw Errors.actionNameTaken();
      return actionView(created);
    },

    async update(accountId: string, id: string, body: UpdateActionBody, audit: AuditContext): Promise<Action> {
      const previous = await requireAction(accountId, id);
      const fields: ActionFields = {
        name: body.name ?? previous.name,
        description: body.description ?? previous.description,
        kind: body.kind ?? previous.kind,
        method: body.method ?? previous.method,
        url: body.url ?? previous.url,
        headers: body.headers === undefined ? previous.headers : headersOf(body.headers, previous.headers),
        body: body.body === undefined ? previous.body : body.body,
        parameters: (body.parameters ?? previous.parameters) as StoredActionParameter[],
        answer: body.answer ?? previous.answer,
        errorAnswer: body.errorAnswer === undefined ? previous.errorAnswer : body.errorAnswer,
        timeoutMs: body.timeoutMs ?? previous.timeoutMs,
        enabled: body.enabled ?? previous.enabled,
      };
      checkAction(fields, { allowHttp });
      const updated = await db.transaction(async (tx) => {
        const row = await inSavepoint(tx, (sp) => store(sp).update(accountId, id, fields, clock.now()), (r) => typeof r === 'string');
        if (typeof row !== 'string') await recorded(tx, audit, 'action.updated', row, fieldsOf(previous), fields);
        return row;
      });
      if (updated === 'missing') throw Errors.actionNotFound();
      if (updated === 'taken') throw Errors.actionNameTaken();
      return actionView(updated);
    },

    async remove(accountId: string, id: string, audit: AuditContext): Promise<{ success: true }> {
      if (!isUuid(id)) throw Errors.actionNotFound();
      const removed = await db.transaction(async (tx) => {
        const action = await store(tx).find(accountId, id);
        if (!action || !(await store(tx).remove(accountId, id))) return false;
        await recorded(tx, audit, 'action.deleted', action, fieldsOf(action), undefined);
        const now = clock.now();
        for (const channel of await store(tx).channelsUsing(accountId, id)) {
          await channels(tx).update(accountId, channel.id, { actionIds: channel.actionIds.filter((actionId) => actionId !== id), updatedAt: now });
        }
        return true;
      });
      if (!removed) throw Errors.actionNotFound();
      return { success: true };
    },

    /** The console's test call: every value from `parameters`; a `write` is sent only with `confirm`. */
    async test(accountId: string, id: string, body: { parameters: Record<string, string | number>; confirm?: boolean }): Promise<ActionTestResult> {
      const action = await requireAction(accountId, id);
      const preview = runner.preview(action, body.parameters, { kind: 'test' });
      if ('reason' in preview) throw Errors.actionParameterInvalid(preview.reason);
      if (action.kind === 'write' && body.confirm !== true) {
        return { request: preview.request.shown, response: null, answer: null, error: 'Not sent: a write action is called only with "confirm": true', outcome: null };
      }
      const run = await runner.run(action, body.parameters, { accountId, chatId: null, source: { kind: 'test' } });
      const shown = run.request?.shown ?? preview.request.shown;
      const answer = run.outcome === 'ok' ? renderAnswer(action.answer, run.json) : null;
      return {
        request: shown,
        response: run.status === null ? null : { status: run.status, body: Buffer.from(run.text).subarray(0, SHOWN_ANSWER_BYTES).toString('utf8').replace(/\uFFFD$/, '') },
        answer,
        error: run.error,
        outcome: run.outcome,
      };
    },

    async runs(accountId: string, id: string, query: { limit?: number; cursor?: string }): Promise<{ runs: ActionRun[]; nextCursor: string | null }> {
      await requireAction(accountId, id);
      const limit = query.limit ?? 50;
      let after: { at: Date; id: string } | undefined;
      if (query.cursor !== undefined) {
        const match = RUN_CURSOR.exec(query.cursor);
        if (!match) throw Errors.invalidCursor();
        after = { at: new Date(match[1] as string), id: match[2] as string };
      }
      const rows = await store(db).listRuns(accountId, id, limit + 1, after);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { runs: page.map(runView), nextCursor: rows.length > limit && last ? `${last.createdAt.toISOString()}_${last.id}` : null };
    },

    /** The operations an import can choose (the web account's list before `Import`); reads nothing of the account. */
    previewImport(body: { openapi: string }): { operations: OpenApiOperation[] } {
      return { operations: previewOpenApi(body.openapi) };
    },

    async importOpenApi(accountId: string, body: { openapi: string; operations: string[] }, audit: AuditContext): Promise<{ actions: Action[] }> {
      const taken = await store(db).names(accountId);
      const drafts = actionsFromOpenApi(body.openapi, body.operations, taken);
      drafts.forEach((fields, i) => {
        try {
          checkAction(fields, { allowHttp });
        } catch (error) {
          if (error instanceof DomainError) throw Errors.openApiInvalid(`${body.operations[i]}: ${error.message}`);
          throw error;
        }
      });
      const now = clock.now();
      const created = await db.transaction(async (tx) => {
        const rows: ActionDefinition[] = [];
        for (const fields of drafts) {
          const row = await store(tx).insert({ ...fields, id: newId(), accountId, now });
          if (!row) throw Errors.actionNameTaken();
          await recorded(tx, audit, 'action.created', row, undefined, fields);
          rows.push(row);
        }
        return rows;
      });
      return { actions: created.map(actionView) };
    },

    /** A chat's most recent `limit` action runs as its console history shows them, newest first. */
    async historyOf(accountId: string, chatId: string, limit: number): Promise<InboxAction[]> {
      if (!isUuid(chatId)) return [];
      const rows = await store(db).runsOfChat(accountId, chatId, limit);
      return rows.map(({ run, name, kind }) => ({
        kind: 'action',
        id: run.id,
        action: { id: run.actionId, name },
        actionKind: kind as InboxAction['actionKind'],
        parameters: run.parameters,
        status: run.status,
        ms: run.ms,
        outcome: run.outcome as InboxAction['outcome'],
        error: run.error,
        createdAt: run.createdAt.toISOString(),
      }));
    },
  };
}

export type ActionsService = ReturnType<typeof createActionsService>;
