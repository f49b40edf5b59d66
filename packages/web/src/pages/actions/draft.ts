// The action form's one state (a Draft made from the Action, or empty for a new one) and the body it saves: headers
// as rows with a secret switch (a stored secret is kept by sending "••••" back), parameters as rows, the JSON body as
// text parsed on save.
import type { Action, ActionHeaderInput, ActionKind, ActionMethod, ActionParameter, CreateActionBody } from '@parley/contracts';

/** What a secret header reads back as, and what keeps it when sent back (contracts: SECRET_MASK). */
export const SECRET_MASK = '••••';
export const TIMEOUT_DEFAULT_MS = 5000;

export interface HeaderDraft {
  name: string;
  /** Empty on a stored secret: keep it. */
  value: string;
  secret: boolean;
  /** A secret the server holds (read back as "••••"). */
  stored: boolean;
}

export interface ParameterDraft {
  name: string;
  description: string;
  type: ActionParameter['type'];
  /** An enum's values, one per line. */
  values: string;
  pattern: string;
  required: boolean;
  prompt: string;
  source: ActionParameter['source'];
}

export interface ActionDraft {
  name: string;
  description: string;
  kind: ActionKind;
  method: ActionMethod;
  url: string;
  headers: HeaderDraft[];
  /** JSON as typed; empty: no body. */
  body: string;
  parameters: ParameterDraft[];
  answer: string;
  /** Empty: a failed call hands the chat to the team. */
  errorAnswer: string;
  timeoutMs: string;
  enabled: boolean;
}

export const EMPTY_PARAMETER: ParameterDraft = {
  name: '',
  description: '',
  type: 'string',
  values: '',
  pattern: '',
  required: true,
  prompt: '',
  source: 'customer',
};

function parameterDraftOf(parameter: ActionParameter): ParameterDraft {
  return {
    name: parameter.name,
    description: parameter.description,
    type: parameter.type,
    values: (parameter.values ?? []).join('\n'),
    pattern: parameter.pattern ?? '',
    required: parameter.required,
    prompt: parameter.prompt ?? '',
    source: parameter.source,
  };
}

/** The form of `action` (a new one when null); `enable` starts an imported action's review as enabled. */
export function draftOf(action: Action | null, enable = false): ActionDraft {
  if (!action) {
    return {
      name: '',
      description: '',
      kind: 'read',
      method: 'GET',
      url: 'https://',
      headers: [],
      body: '',
      parameters: [],
      answer: '',
      errorAnswer: '',
      timeoutMs: String(TIMEOUT_DEFAULT_MS),
      enabled: true,
    };
  }
  return {
    name: action.name,
    description: action.description,
    kind: action.kind,
    method: action.method,
    url: action.url,
    headers: Object.entries(action.headers).map(([name, value]) =>
      value === SECRET_MASK ? { name, value: '', secret: true, stored: true } : { name, value, secret: false, stored: false },
    ),
    body: action.body === null || action.body === undefined ? '' : JSON.stringify(action.body, null, 2),
    parameters: action.parameters.map(parameterDraftOf),
    answer: action.answer,
    errorAnswer: action.errorAnswer ?? '',
    timeoutMs: String(action.timeoutMs),
    enabled: action.enabled || enable,
  };
}

function parameterOf(draft: ParameterDraft): ActionParameter {
  const parameter: ActionParameter = {
    name: draft.name.trim(),
    description: draft.description,
    type: draft.type,
    required: draft.required,
    source: draft.source,
  };
  if (draft.type === 'enum') {
    parameter.values = draft.values
      .split('\n')
      .map((value) => value.trim())
      .filter(Boolean);
  }
  if (draft.pattern.trim()) parameter.pattern = draft.pattern.trim();
  if (draft.prompt.trim()) parameter.prompt = draft.prompt.trim();
  return parameter;
}

function headersOf(rows: readonly HeaderDraft[]): Record<string, ActionHeaderInput> {
  const headers: Record<string, ActionHeaderInput> = {};
  for (const row of rows) {
    const name = row.name.trim();
    if (!name) continue;
    if (!row.secret) headers[name] = row.value;
    else headers[name] = { secret: row.stored && row.value === '' ? SECRET_MASK : row.value };
  }
  return headers;
}

/** The body the form saves, or the reason its JSON body cannot be read (shown at the field). */
export function bodyOf(draft: ActionDraft): { body: CreateActionBody } | { bodyError: string } {
  let json: unknown = null;
  if (draft.body.trim()) {
    try {
      json = JSON.parse(draft.body);
    } catch (error) {
      return { bodyError: error instanceof Error ? error.message : String(error) };
    }
  }
  return {
    body: {
      name: draft.name.trim(),
      description: draft.description,
      kind: draft.kind,
      method: draft.method,
      url: draft.url.trim(),
      headers: headersOf(draft.headers),
      body: json,
      parameters: draft.parameters.map(parameterOf),
      answer: draft.answer,
      errorAnswer: draft.errorAnswer.trim() ? draft.errorAnswer : null,
      timeoutMs: Number(draft.timeoutMs),
      enabled: draft.enabled,
    },
  };
}
