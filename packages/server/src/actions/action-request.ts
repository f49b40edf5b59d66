// Running an action, before and after the call, without I/O (docs/architecture.md, Agent actions): the values checked
// against the parameters (type, whole-value pattern, enum values, required; a `verified` one from the chat's verified
// identity only), then put in the request where they cannot change its shape — URL-encoded into the path and query
// (no value adds a segment, a parameter or a fragment; a value alone in a segment cannot be `.` or `..`), JSON-encoded
// into the body (a value is one JSON string or number, never a field) — and the secrets masked wherever the request or
// the answer is shown.
import { SECRET_MASK } from '@parley/contracts';
import type { StoredActionParameter } from '../db/schema.ts';
import { PLACEHOLDER, wholePattern, wholePlaceholder, type ActionDefinition } from './action-definition.ts';

export type ActionValue = string | number;
export type ActionValues = Record<string, ActionValue>;

/** A value longer than this is refused (nothing a shop's identifier needs). */
export const VALUE_MAX = 1000;

/** Where the values come from: a chat (customer values given, verified ones from its identity) or a test (all given). */
export type ValueSource = { kind: 'chat'; identity: string | null } | { kind: 'test' };

export type CheckedValues = { ok: true; values: ActionValues } | { ok: false; reason: string };

/** The request as it goes out (headers plain) and as it is shown (`shown`: secrets masked). */
export interface PreparedRequest {
  method: ActionDefinition['method'];
  url: string;
  headers: Record<string, string>;
  /** The body as sent (JSON text); undefined: none. */
  body: string | undefined;
  shown: { method: ActionDefinition['method']; url: string; headers: Record<string, string>; body: unknown };
}

/** The parameter's value from a given one: typed, or why it is refused. */
export function typedValue(parameter: StoredActionParameter, given: unknown): { value: ActionValue } | { reason: string } {
  const name = parameter.name;
  let value: ActionValue;
  if (parameter.type === 'number') {
    const number = typeof given === 'number' ? given : typeof given === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(given) ? Number(given) : Number.NaN;
    if (!Number.isFinite(number)) return { reason: `${name}: must be a number` };
    value = number;
  } else if (typeof given === 'string' || typeof given === 'number') {
    value = String(given);
  } else {
    return { reason: `${name}: must be a string` };
  }
  const text = String(value);
  if (text.length > VALUE_MAX) return { reason: `${name}: at most ${VALUE_MAX} characters` };
  if (parameter.type === 'enum') {
    const match = parameter.values?.find((allowed) => allowed.toLowerCase() === text.toLowerCase());
    if (match === undefined) return { reason: `${name}: must be one of ${(parameter.values ?? []).join(', ')}` };
    value = match;
  }
  if (parameter.pattern !== undefined && !wholePattern(parameter.pattern).test(String(value))) {
    return { reason: `${name}: does not match the pattern ${parameter.pattern}` };
  }
  return { value };
}

/** Whether an action needs the chat's verified identity. */
export function needsIdentity(action: Pick<ActionDefinition, 'parameters'>): boolean {
  return action.parameters.some((parameter) => parameter.source === 'verified');
}

/**
 * The values of a run, checked. In a chat a `verified` parameter takes the chat's identity and nothing given (a
 * customer's text, a model's argument) can set it; an unknown name is refused.
 */
export function checkValues(action: Pick<ActionDefinition, 'parameters'>, given: Readonly<Record<string, unknown>>, source: ValueSource): CheckedValues {
  const names = new Set(action.parameters.map((parameter) => parameter.name));
  for (const key of Object.keys(given)) {
    if (!names.has(key)) return { ok: false, reason: `${key}: not a parameter of this action` };
  }
  const values: ActionValues = {};
  for (const parameter of action.parameters) {
    const fromIdentity = source.kind === 'chat' && parameter.source === 'verified';
    if (fromIdentity && given[parameter.name] !== undefined) return { ok: false, reason: `${parameter.name}: is the customer's verified identity and cannot be given` };
    const raw = fromIdentity ? (source.identity ?? undefined) : given[parameter.name];
    if (raw === undefined || raw === null || raw === '') {
      if (fromIdentity) return { ok: false, reason: `${parameter.name}: the chat has no verified identity` };
      if (parameter.required) return { ok: false, reason: `${parameter.name}: required` };
      continue;
    }
    const typed = typedValue(parameter, raw);
    if ('reason' in typed) return { ok: false, reason: typed.reason };
    values[parameter.name] = typed.value;
  }
  return { ok: true, values };
}

/** Thrown when the values cannot go into the URL without changing its shape. */
export class RequestShapeError extends Error {}

/** A query item `key={{name}}` whose parameter has no value is left out (an optional parameter not given). */
function dropAbsentQueryItems(query: string, values: ActionValues): string {
  return query
    .split('&')
    .filter((item) => {
      const placeholder = wholePlaceholder(item.slice(item.indexOf('=') + 1));
      return !(item.includes('=') && placeholder !== undefined && values[placeholder] === undefined);
    })
    .join('&');
}

/** The URL with each placeholder replaced by its value, percent-encoded; its origin stays the template's. */
export function renderUrl(template: string, values: ActionValues): string {
  const at = template.indexOf('?');
  const pathPart = at < 0 ? template : template.slice(0, at);
  const queryPart = at < 0 ? undefined : dropAbsentQueryItems(template.slice(at + 1), values);
  const fill = (text: string) => text.replace(PLACEHOLDER, (_match, name: string) => (values[name] === undefined ? '' : encodeURIComponent(String(values[name]))));
  // A segment that is a value alone must not read as `.` or `..` (URL parsers resolve them, %2E included).
  for (const segment of pathPart.split('/')) {
    if (!segment.includes('{{')) continue;
    const filled = decodeURIComponent(fill(segment)).toLowerCase();
    if (filled === '.' || filled === '..') throw new RequestShapeError('a value cannot be the path segment "." or ".."');
  }
  const rendered = queryPart === undefined ? fill(pathPart) : queryPart === '' ? fill(pathPart) : `${fill(pathPart)}?${fill(queryPart)}`;
  const origin = new URL(template.replace(PLACEHOLDER, 'x')).origin;
  const url = new URL(rendered);
  if (url.origin !== origin) throw new RequestShapeError('the values changed where the request goes');
  return url.toString();
}

/** The body template with the values in: a string that is one placeholder takes the typed value (absent: left out). */
export function renderBody(template: unknown, values: ActionValues): unknown {
  if (typeof template === 'string') {
    const whole = wholePlaceholder(template);
    if (whole !== undefined) return values[whole];
    return template.replace(PLACEHOLDER, (_match, name: string) => (values[name] === undefined ? '' : String(values[name])));
  }
  if (Array.isArray(template)) return template.map((item) => renderBody(item, values) ?? null);
  if (typeof template === 'object' && template !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(template)) {
      const value = renderBody(item, values);
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
  return template;
}

/** The secret values of an action's headers (masked wherever text from the call is shown or stored). */
export function secretsOf(action: Pick<ActionDefinition, 'headers'>): string[] {
  return action.headers.filter((header) => header.secret && header.value.length > 0).map((header) => header.value);
}

/** `text` with every secret of the action masked. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(SECRET_MASK);
  return out;
}

/** A JSON value with the secrets masked in every string. */
function maskDeep(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return maskSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, secrets));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskDeep(item, secrets)]));
  return value;
}

/** The values with the action's secrets masked (what a run records). */
export function maskedValues(values: ActionValues, secrets: readonly string[]): ActionValues {
  if (secrets.length === 0) return values;
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typeof value === 'string' ? maskSecrets(value, secrets) : value]));
}

/** The request of a run with checked values. Throws RequestShapeError when a value would change its shape. */
export function prepareRequest(action: ActionDefinition, values: ActionValues): PreparedRequest {
  const url = renderUrl(action.url, values);
  const bodyValue = action.body === null ? null : renderBody(action.body, values);
  const body = bodyValue === null ? undefined : JSON.stringify(bodyValue);
  const headers = Object.fromEntries(action.headers.map((header) => [header.name, header.value]));
  const shownHeaders = Object.fromEntries(action.headers.map((header) => [header.name, header.secret ? SECRET_MASK : header.value]));
  const secrets = secretsOf(action);
  return {
    method: action.method,
    url,
    headers,
    body,
    shown: { method: action.method, url: maskSecrets(url, secrets), headers: shownHeaders, body: maskDeep(bodyValue, secrets) },
  };
}
