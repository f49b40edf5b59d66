// An action as the code uses it, and the rules of a saved one (docs/architecture.md, Agent actions): placeholders name
// declared parameters and sit only in the URL's path and query and in the body's strings; patterns compile; the URL
// is http(s) (http only with WEBHOOK_ALLOW_PRIVATE_NETWORKS); headers are fixed text Parley does not set itself; the
// answer is a valid template. Each broken rule is a 400 naming the field.
import { ACTION_URL_MAX, type ActionKind, type ActionMethod } from '@parley/contracts';
import type { StoredActionParameter } from '../db/schema.ts';
import { Errors } from '../errors.ts';
import { checkTemplate } from './answer-template.ts';

export interface ActionHeader {
  name: string;
  /** The plain value (a secret opened). */
  value: string;
  secret: boolean;
}

/** An action with its secrets opened: what the runner calls. */
export interface ActionDefinition {
  id: string;
  accountId: string;
  name: string;
  description: string;
  kind: ActionKind;
  method: ActionMethod;
  url: string;
  headers: ActionHeader[];
  /** A JSON template; null: no body. */
  body: unknown;
  parameters: StoredActionParameter[];
  answer: string;
  errorAnswer: string | null;
  timeoutMs: number;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields of a saved action (what the rules check). */
export type ActionFields = Pick<ActionDefinition, 'name' | 'description' | 'kind' | 'method' | 'url' | 'headers' | 'body' | 'parameters' | 'answer' | 'errorAnswer' | 'timeoutMs' | 'enabled'>;

/** `{{name}}` (spaces inside allowed). */
export const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
/** A string that is one placeholder and nothing else. */
const WHOLE_PLACEHOLDER = /^\{\{\s*([^{}]*?)\s*\}\}$/;

/** The tools the model always has (openai-engine.ts): an action may not take their names. */
export const RESERVED_ACTION_NAMES: readonly string[] = ['complete_task', 'hand_off'];

/** Headers Parley sets or the HTTP connection owns: an action may not set them. */
const OWN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'user-agent', 'expect']);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

/** The parameter a whole-string placeholder names, else undefined. */
export function wholePlaceholder(text: string): string | undefined {
  return WHOLE_PLACEHOLDER.exec(text)?.[1];
}

/** The names every placeholder of `text` gives. */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
}

/** A parameter's pattern as matched against a whole value (and a token of a message). */
export function wholePattern(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 'u');
}

function invalid(reason: string): never {
  throw Errors.actionInvalid(reason);
}

function checkParameters(parameters: readonly StoredActionParameter[]): void {
  const seen = new Set<string>();
  parameters.forEach((parameter, i) => {
    const at = `parameters[${i}]`;
    if (seen.has(parameter.name)) invalid(`${at}.name: "${parameter.name}" is given twice`);
    seen.add(parameter.name);
    if (parameter.pattern !== undefined) {
      try {
        wholePattern(parameter.pattern);
      } catch {
        invalid(`${at}.pattern: not a valid regular expression`);
      }
    }
    if (parameter.type === 'enum' && (parameter.values === undefined || parameter.values.length === 0)) invalid(`${at}.values: an enum parameter needs its values`);
    if (parameter.type !== 'enum' && parameter.values !== undefined) invalid(`${at}.values: only an enum parameter has values`);
    if (parameter.source === 'verified' && parameter.type === 'enum') invalid(`${at}.type: a verified parameter is a string or a number`);
  });
}

function checkPlaceholders(field: string, text: string, known: ReadonlySet<string>): void {
  for (const name of placeholdersOf(text)) {
    if (!known.has(name)) invalid(`${field}: unknown placeholder {{${name}}}: it names no parameter`);
  }
  // A brace pair left after the placeholders are taken out is a broken one (`{{name}`, `{{ {{x}} }}`).
  if (/\{\{|\}\}/.test(text.replace(PLACEHOLDER, ''))) invalid(`${field}: a placeholder is not closed or is nested`);
}

function checkUrl(url: string, known: ReadonlySet<string>, allowHttp: boolean): void {
  if (url.length > ACTION_URL_MAX) invalid(`url: at most ${ACTION_URL_MAX} characters`);
  checkPlaceholders('url', url, known);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  if (!scheme) invalid('url must be an http or https URL');
  // The authority (host, port) is fixed: a customer's value can never choose where the request goes.
  const authority = url.slice(scheme[0].length).split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('{{')) invalid('url: placeholders are allowed in the path and the query only, not in the host');
  let parsed: URL;
  try {
    parsed = new URL(url.replace(PLACEHOLDER, 'x'));
  } catch {
    invalid('url must be an http or https URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') invalid('url must be an http or https URL');
  if (parsed.protocol === 'http:' && !allowHttp) invalid('url must be https (http only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)');
  if (parsed.username || parsed.password) invalid('url must not hold a user name or password: put credentials in a secret header');
  if (url.includes('#')) invalid('url must not have a fragment');
}

function checkBody(value: unknown, known: ReadonlySet<string>, path: string): void {
  if (typeof value === 'string') return checkPlaceholders(path, value, known);
  if (Array.isArray(value)) return value.forEach((item, i) => checkBody(item, known, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('{{')) invalid(`${path}: placeholders are not allowed in field names`);
      checkBody(item, known, `${path}.${key}`);
    }
  }
}

function checkHeaders(headers: readonly ActionHeader[]): void {
  const seen = new Set<string>();
  for (const header of headers) {
    const lower = header.name.toLowerCase();
    if (!HEADER_NAME.test(header.name)) invalid(`headers: "${header.name}" is not a valid header name`);
    if (OWN_HEADERS.has(lower) || lower.startsWith('proxy-')) invalid(`headers: ${header.name} is set by Parley or the connection`);
    if (seen.has(lower)) invalid(`headers: ${header.name} is given twice`);
    seen.add(lower);
    if (/[\r\n\0]/.test(header.value)) invalid(`headers: the value of ${header.name} must be one line`);
    if (header.value.includes('{{')) invalid(`headers: the value of ${header.name} must not hold placeholders`);
  }
}

/** Throws the 400 of the first rule a saved action breaks. */
export function checkAction(action: ActionFields, { allowHttp }: { allowHttp: boolean }): void {
  if (RESERVED_ACTION_NAMES.includes(action.name)) invalid(`name: "${action.name}" is the name of one of the agent's own tools`);
  checkParameters(action.parameters);
  const known = new Set(action.parameters.map((parameter) => parameter.name));
  checkUrl(action.url, known, allowHttp);
  checkHeaders(action.headers);
  if (action.body !== null) checkBody(action.body, known, 'body');
  const broken = checkTemplate(action.answer);
  if (broken) invalid(`answer: not a valid template (${broken})`);
}
