// Actions from operations of an OpenAPI 3 document (JSON or YAML text; docs/decisions.md, "Agent actions"): each chosen
// operation's path and query parameters become the action's parameters (their `$ref`s resolved within the document),
// `summary` (else `description`) its description, GET a `read` and other methods a `write`, the first server URL (its
// variables at their defaults) and the path its URL template. Header and cookie parameters and request bodies are left
// for the team to add; the actions are created disabled.
import { ACTION_PARAMETERS_MAX, ACTION_TIMEOUT_DEFAULT_MS, type ActionMethod, type OpenApiOperation } from '@parley/contracts';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { StoredActionParameter } from '../db/schema.ts';
import { Errors } from '../errors.ts';
import type { ActionFields } from './action-definition.ts';

/** The YAML parser, loaded on the first import of a document (not at start). */
let yaml: typeof Yaml | undefined;
const loadYaml = (): typeof Yaml => (yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml);

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A local `$ref` (`#/components/parameters/Id`) followed, a few times at most; anything else as it is. */
function resolve(document: Node, value: unknown, depth = 0): unknown {
  if (!isNode(value) || typeof value.$ref !== 'string' || depth > 5) return value;
  if (!value.$ref.startsWith('#/')) throw Errors.openApiInvalid(`only references within the document are followed (${value.$ref})`);
  let at: unknown = document;
  for (const part of value.$ref.slice(2).split('/')) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    at = isNode(at) ? at[key] : undefined;
  }
  if (at === undefined) throw Errors.openApiInvalid(`the reference ${value.$ref} leads nowhere`);
  return resolve(document, at, depth + 1);
}

/** A name as an action's (`^[a-z][a-z0-9_]{0,39}$`): `getOrderStatus` → `get_order_status`. */
export function actionNameOf(operationId: string): string {
  const snake = operationId
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const name = /^[a-z]/.test(snake) ? snake : `op_${snake}`;
  return name.slice(0, 40).replace(/_+$/, '') || 'operation';
}

/** A parameter name as a placeholder's (`^[A-Za-z_][A-Za-z0-9_]{0,39}$`). */
function parameterNameOf(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_]+/g, '_');
  return (/^[A-Za-z_]/.test(clean) ? clean : `_${clean}`).slice(0, 40);
}

function unique(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${name.slice(0, 40 - String(n).length - 1)}_${n}`;
  taken.add(candidate);
  return candidate;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(`^(?:${pattern})$`, 'u');
    return true;
  } catch {
    return false;
  }
}

function parameterOf(document: Node, raw: Node, name: string): StoredActionParameter {
  const schema = resolve(document, raw.schema);
  const node = isNode(schema) ? schema : {};
  const values = Array.isArray(node.enum) ? node.enum.filter((v) => typeof v === 'string' || typeof v === 'number').map(String) : [];
  const type: StoredActionParameter['type'] = values.length > 0 ? 'enum' : node.type === 'integer' || node.type === 'number' ? 'number' : 'string';
  const description = typeof raw.description === 'string' && raw.description.trim() ? raw.description.trim() : String(raw.name);
  const parameter: StoredActionParameter = {
    name,
    description: description.slice(0, 500),
    type,
    required: raw.in === 'path' || raw.required === true,
    source: 'customer',
  };
  if (type === 'enum') parameter.values = values.slice(0, 50).map((v) => v.slice(0, 200));
  if (type === 'string' && typeof node.pattern === 'string' && node.pattern.length <= 500 && compiles(node.pattern)) parameter.pattern = node.pattern;
  return parameter;
}

/** The first server's URL with its variables at their defaults; absolute or the import cannot place the call. */
function serverUrl(servers: unknown): string {
  const first = Array.isArray(servers) ? servers[0] : undefined;
  if (!isNode(first) || typeof first.url !== 'string') throw Errors.openApiInvalid('the document names no server (servers[0].url): the actions need an absolute URL');
  const variables = isNode(first.variables) ? first.variables : {};
  const url = first.url.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const variable = variables[name];
    return isNode(variable) && typeof variable.default === 'string' ? variable.default : '';
  });
  if (!/^https?:\/\//i.test(url)) throw Errors.openApiInvalid(`the server URL "${first.url}" is not an absolute http(s) URL: the actions need one`);
  return url.replace(/\/+$/, '');
}

function readDocument(text: string): Node {
  let document: unknown;
  try {
    document = loadYaml().parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw Errors.openApiInvalid(`the document is neither JSON nor YAML (${(error as Error).message.split('\n')[0]})`);
  }
  if (!isNode(document)) throw Errors.openApiInvalid('the document is not an object');
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.')) {
    throw Errors.openApiInvalid('only OpenAPI 3 documents are read (no `openapi: 3.x` field)');
  }
  if (!isNode(document.paths)) throw Errors.openApiInvalid('the document has no paths');
  return document;
}

interface FoundOperation {
  path: string;
  method: (typeof METHODS)[number];
  item: Node;
  operation: Node;
}

/** The document's operations that have an `operationId` (the first of each id), in the document's order. */
function operationsOf(document: Node): Map<string, FoundOperation> {
  const found = new Map<string, FoundOperation>();
  for (const [path, rawItem] of Object.entries(document.paths as Node)) {
    const item = resolve(document, rawItem);
    if (!isNode(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (isNode(operation) && typeof operation.operationId === 'string' && !found.has(operation.operationId)) {
        found.set(operation.operationId, { path, method, item, operation });
      }
    }
  }
  return found;
}

function summaryOf(operation: Node): string | undefined {
  if (typeof operation.summary === 'string' && operation.summary.trim()) return operation.summary.trim();
  if (typeof operation.description === 'string' && operation.description.trim()) return operation.description.trim();
  return undefined;
}

/** What the web account lists to choose from before an import (the same reading, nothing created). */
export function previewOpenApi(text: string): OpenApiOperation[] {
  return [...operationsOf(readDocument(text))].map(([operationId, { path, method, operation }]) => ({
    operationId,
    method: method.toUpperCase() as ActionMethod,
    path,
    summary: summaryOf(operation) ?? null,
    kind: method === 'get' ? 'read' : 'write',
  }));
}

/** The actions of the chosen operations, named apart from `taken` (the account's names), disabled. */
export function actionsFromOpenApi(text: string, operationIds: readonly string[], taken: Set<string>): ActionFields[] {
  const document = readDocument(text);
  const found = operationsOf(document);
  return operationIds.map((operationId) => {
    const at = found.get(operationId);
    if (!at) throw Errors.openApiOperationNotFound(operationId);
    const { path, method, item, operation } = at;
    const base = serverUrl(operation.servers ?? item.servers ?? document.servers);
    // Path-level parameters, overridden by the operation's own of the same name and place.
    const declared = new Map<string, Node>();
    for (const raw of [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(operation.parameters) ? operation.parameters : [])]) {
      const parameter = resolve(document, raw);
      if (isNode(parameter) && typeof parameter.name === 'string' && (parameter.in === 'path' || parameter.in === 'query')) {
        declared.set(`${parameter.in}:${parameter.name}`, parameter);
      }
    }
    const names = new Set<string>();
    const parameters: StoredActionParameter[] = [];
    const placeholder = new Map<string, string>();
    for (const [key, raw] of declared) {
      if (parameters.length >= ACTION_PARAMETERS_MAX) break;
      const name = unique(parameterNameOf(String(raw.name)), names);
      placeholder.set(key, name);
      parameters.push(parameterOf(document, raw, name));
    }
    const filledPath = path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      const known = placeholder.get(`path:${name}`);
      if (!known) throw Errors.openApiInvalid(`${operationId}: the path parameter {${name}} is not declared`);
      return `{{${known}}}`;
    });
    const query = [...declared.entries()]
      .filter(([key]) => key.startsWith('query:') && placeholder.has(key))
      .map(([key, raw]) => `${encodeURIComponent(String(raw.name))}={{${placeholder.get(key)}}}`);
    const description = summaryOf(operation) ?? '';
    return {
      name: unique(actionNameOf(operationId), taken),
      description: description.slice(0, 1000),
      kind: method === 'get' ? 'read' : 'write',
      method: method.toUpperCase() as ActionMethod,
      url: `${base}${filledPath}${query.length > 0 ? `?${query.join('&')}` : ''}`,
      headers: [],
      body: null,
      parameters,
      answer: '',
      errorAnswer: null,
      timeoutMs: ACTION_TIMEOUT_DEFAULT_MS,
      enabled: false,
    };
  });
}
