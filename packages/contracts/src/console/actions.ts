// Agent actions (docs/architecture.md, Agent actions): HTTP calls to the account's own systems (the shop's API) that
// the agent may make in a chat, with typed parameters, write-only secret headers, an answer template over the JSON
// response, a test call, the record of every run, and the import of operations of an OpenAPI 3 document.
import { Type, type Static } from 'typebox';
import { ErrorBody } from '../errors.ts';
import { route } from '../route.ts';
import { map, nullable, object, optionalFields, stringEnum, Timestamp } from '../schema.ts';
import { ConsoleErrors, Uuid } from './common.ts';

export const ACTION_NAME_PATTERN = '^[a-z][a-z0-9_]{0,39}$';
/** A parameter's name, as `{{name}}` placeholders and the model's tool arguments spell it. */
export const ACTION_PARAMETER_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,39}$';
export const ACTION_KINDS = ['read', 'write'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
export const ACTION_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ActionMethod = (typeof ACTION_METHODS)[number];
export const ACTION_PARAMETER_TYPES = ['string', 'number', 'enum'] as const;
export const ACTION_PARAMETER_SOURCES = ['customer', 'verified'] as const;
export const ACTION_OUTCOMES = ['ok', 'http_error', 'timeout', 'refused', 'invalid', 'declined'] as const;
export type ActionOutcome = (typeof ACTION_OUTCOMES)[number];
/** What a secret header reads back as; a PUT that sends it back keeps the stored secret. */
export const SECRET_MASK = '••••';
export const ACTION_TIMEOUT_MIN_MS = 1000;
export const ACTION_TIMEOUT_MAX_MS = 10_000;
export const ACTION_TIMEOUT_DEFAULT_MS = 5000;
export const ACTION_PARAMETERS_MAX = 20;
export const ACTION_HEADERS_MAX = 20;
export const ACTION_URL_MAX = 2000;
export const ACTION_TEMPLATE_MAX = 10_000;
/** An OpenAPI document given to the import, as text (JSON or YAML). */
export const OPENAPI_DOCUMENT_MAX = 2 * 1024 * 1024;

const Name = Type.String({ pattern: ACTION_NAME_PATTERN, description: 'lower-case letters, digits and `_`, up to 40; unique in the account (the model calls the tool by it)' });
const Description = Type.String({ maxLength: 1000, description: 'what it does and when to use it: the model reads it, and a `write` asks "Shall I <description> for <parameters>?"' });

export const ActionParameter = object({
  name: Type.String({ pattern: ACTION_PARAMETER_NAME_PATTERN, description: 'used as `{{name}}` in `url` and `body`' }),
  description: Type.String({ maxLength: 500 }),
  type: stringEnum(ACTION_PARAMETER_TYPES),
  pattern: Type.Optional(
    Type.String({ minLength: 1, maxLength: 500, description: 'a regular expression the whole value must match (and how the no-model path finds it in a message)' }),
  ),
  values: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 50, description: 'type `enum`: the values allowed' })),
  required: Type.Boolean(),
  prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'no-model path: the question asking the customer for it' })),
  source: stringEnum(ACTION_PARAMETER_SOURCES, {
    description: "`customer`: given by the customer (the model's argument, or found in a message); `verified`: the chat's verified identity only",
  }),
});
export type ActionParameter = Static<typeof ActionParameter>;

/** A header value as set: plain text, or `{ secret }` (write-only, sealed at rest). */
export type ActionHeaderInput = string | { secret: string };
const HeaderValue = { type: 'string', maxLength: 2000 } as const;
const HeadersInput = map<ActionHeaderInput>(
  { anyOf: [HeaderValue, { type: 'object', properties: { secret: { ...HeaderValue, minLength: 1 } }, required: ['secret'], additionalProperties: false }] },
  {
    maxProperties: ACTION_HEADERS_MAX,
    description: `header name → value, or \`{ "secret": "…" }\` for a write-only value (read back as \`"${SECRET_MASK}"\`; sending \`"${SECRET_MASK}"\` back keeps the stored one). No placeholders.`,
  },
);
const HeadersView = map<string>({ type: 'string' }, { description: `header name → value; a secret value reads \`"${SECRET_MASK}"\`` });
/** A JSON value (any), or null. */
const JsonBody = Type.Unsafe<unknown>({
  description: 'a JSON value whose strings may hold `{{param}}` (a string that is exactly `{{param}}` takes the typed value); null: no body',
});

const editable = {
  name: Name,
  description: Description,
  kind: stringEnum(ACTION_KINDS, { description: '`write` runs only after the customer answers yes to the server’s own question' }),
  method: stringEnum(ACTION_METHODS),
  url: Type.String({
    minLength: 1,
    maxLength: ACTION_URL_MAX,
    description: 'an https URL (http only with WEBHOOK_ALLOW_PRIVATE_NETWORKS) whose path and query may hold `{{param}}`, e.g. `https://shop.example/api/orders/{{order_number}}`',
  }),
  headers: HeadersInput,
  body: JsonBody,
  parameters: Type.Array(ActionParameter, { maxItems: ACTION_PARAMETERS_MAX }),
  answer: Type.String({
    maxLength: ACTION_TEMPLATE_MAX,
    description: 'no-model path: the reply, a template over the JSON response (`{{path.to.field}}`, `{{#list}}…{{/list}}`), never HTML-escaped',
  }),
  errorAnswer: nullable(Type.String({ minLength: 1, maxLength: ACTION_TEMPLATE_MAX, description: 'no-model path: sent when the call fails; null hands the chat to the team' })),
  timeoutMs: Type.Integer({ minimum: ACTION_TIMEOUT_MIN_MS, maximum: ACTION_TIMEOUT_MAX_MS, description: `default ${ACTION_TIMEOUT_DEFAULT_MS}` }),
  enabled: Type.Boolean({ description: 'default true (false for imported actions until saved)' }),
};
const { name, description, kind, method, url, ...rest } = editable;

export const CreateActionBody = object({ name, description, kind, method, url, ...optionalFields(rest) });
export type CreateActionBody = Static<typeof CreateActionBody>;

/** PUT: the fields given replace the stored ones; `headers`, when given, is the whole set. */
export const UpdateActionBody = object(optionalFields(editable));
export type UpdateActionBody = Static<typeof UpdateActionBody>;

export const Action = object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  kind: stringEnum(ACTION_KINDS),
  method: stringEnum(ACTION_METHODS),
  url: Type.String(),
  headers: HeadersView,
  body: JsonBody,
  parameters: Type.Array(ActionParameter),
  answer: Type.String(),
  errorAnswer: nullable(Type.String()),
  timeoutMs: Type.Integer(),
  enabled: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Action = Static<typeof Action>;

/** Parameter values by name (a test call's, a run's). */
export const ActionValues = map<string | number>(
  { anyOf: [{ type: 'string', maxLength: 1000 }, { type: 'number' }] },
  { maxProperties: ACTION_PARAMETERS_MAX, description: 'parameter name → value' },
);

export const ActionTestResult = object({
  request: object({
    method: stringEnum(ACTION_METHODS),
    url: Type.String(),
    headers: map<string>({ type: 'string' }, { description: `secrets read \`"${SECRET_MASK}"\`` }),
    body: JsonBody,
  }),
  response: nullable(
    object({
      status: Type.Integer(),
      body: Type.String({ description: "the shop's answer as text, cut to 8 KB, secrets masked" }),
    }),
  ),
  answer: nullable(Type.String({ description: '`answer` rendered with the response (null when the call did not succeed)' })),
  error: nullable(Type.String()),
  outcome: nullable(stringEnum(ACTION_OUTCOMES, { description: 'null when nothing was sent (a `write` without `confirm: true`)' })),
});
export type ActionTestResult = Static<typeof ActionTestResult>;

export const ActionRun = object({
  id: Type.String(),
  chatId: nullable(Type.String({ description: 'null for a test call or a replay' })),
  at: Timestamp,
  parameters: ActionValues,
  status: nullable(Type.Integer({ description: "the shop's HTTP status; null when no answer came" })),
  ms: nullable(Type.Integer({ description: 'null when nothing was sent' })),
  outcome: stringEnum(ACTION_OUTCOMES, {
    description: '`refused`: the URL guard, a redirect, a non-JSON or oversized answer; `invalid`: a parameter value was refused before any call; `declined`: the customer did not confirm a `write`',
  }),
  error: nullable(Type.String()),
});
export type ActionRun = Static<typeof ActionRun>;

/** An action run in a chat's console history (never shown to the customer). */
export const InboxAction = object({
  kind: Type.Literal('action'),
  id: Type.String(),
  action: object({ id: Type.String(), name: Type.String() }),
  actionKind: stringEnum(ACTION_KINDS),
  parameters: ActionValues,
  status: nullable(Type.Integer()),
  ms: nullable(Type.Integer()),
  outcome: stringEnum(ACTION_OUTCOMES),
  error: nullable(Type.String()),
  createdAt: Timestamp,
});
export type InboxAction = Static<typeof InboxAction>;

/** An operation of an OpenAPI document, as the import's preview lists it. */
export const OpenApiOperation = object({
  operationId: Type.String(),
  method: stringEnum(ACTION_METHODS),
  path: Type.String(),
  summary: nullable(Type.String({ description: '`summary`, else `description`, else null' })),
  kind: stringEnum(ACTION_KINDS, { description: 'what the import makes of it: GET a `read`, the others a `write`' }),
});
export type OpenApiOperation = Static<typeof OpenApiOperation>;

const ActionParams = object({ id: Uuid });

export const actionRoutes = {
  listActions: route({
    method: 'GET',
    url: '/actions/',
    operationId: 'listActions',
    role: 'agent',
    summary: 'The actions of the account, by name (secret headers masked)',
    tags: ['Actions'],
    schema: { response: { 200: object({ actions: Type.Array(Action) }), ...ConsoleErrors } },
  }),
  createAction: route({
    method: 'POST',
    url: '/actions/',
    operationId: 'createAction',
    role: 'admin',
    summary: 'Create an action (409 when the account has one of this name)',
    description:
      '400 on a placeholder that names no parameter, a bad `pattern`, a URL that is not http(s) (or `http:` without WEBHOOK_ALLOW_PRIVATE_NETWORKS), ' +
      'a placeholder in the URL\'s host, a header Parley sets itself, or an `answer` that is not a valid template.',
    tags: ['Actions'],
    schema: { body: CreateActionBody, response: { 201: Action, 409: ErrorBody, ...ConsoleErrors } },
  }),
  importActions: route({
    method: 'POST',
    url: '/actions/import',
    operationId: 'importActions',
    role: 'admin',
    summary: 'Create disabled actions from operations of an OpenAPI 3 document (JSON or YAML text)',
    description:
      'Each chosen operation (by `operationId`) becomes an action: its path and query parameters the parameters, `summary`/`description` the ' +
      'description, GET a `read` and other methods a `write`, the first server URL and the path the URL; it stays disabled until saved with `enabled: true`.',
    tags: ['Actions'],
    schema: {
      body: object({
        openapi: Type.String({ minLength: 1, maxLength: OPENAPI_DOCUMENT_MAX, description: 'the document, JSON or YAML' }),
        operations: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 50, uniqueItems: true, description: 'operationIds' }),
      }),
      response: { 201: object({ actions: Type.Array(Action) }), ...ConsoleErrors },
    },
  }),
  previewActionImport: route({
    method: 'POST',
    url: '/actions/import/preview',
    operationId: 'previewActionImport',
    role: 'admin',
    summary: 'The operations of an OpenAPI 3 document (JSON or YAML text) that an import can choose; nothing is created',
    description:
      'Read as the import reads it: the operations of `get`, `post`, `put`, `patch` and `delete` that have an `operationId` (the import picks by it), ' +
      'in the order of the document, with the kind the import would give them. 400 as the import for a document it cannot read.',
    tags: ['Actions'],
    schema: {
      body: object({ openapi: Type.String({ minLength: 1, maxLength: OPENAPI_DOCUMENT_MAX, description: 'the document, JSON or YAML' }) }),
      response: { 200: object({ operations: Type.Array(OpenApiOperation) }), ...ConsoleErrors },
    },
  }),
  getAction: route({
    method: 'GET',
    url: '/actions/:id',
    operationId: 'getAction',
    role: 'agent',
    summary: 'An action (secret headers masked)',
    tags: ['Actions'],
    schema: { params: ActionParams, response: { 200: Action, ...ConsoleErrors } },
  }),
  updateAction: route({
    method: 'PUT',
    url: '/actions/:id',
    operationId: 'updateAction',
    role: 'admin',
    summary: 'Change an action (partial; 409 when another one has the name)',
    tags: ['Actions'],
    schema: { params: ActionParams, body: UpdateActionBody, response: { 200: Action, 409: ErrorBody, ...ConsoleErrors } },
  }),
  deleteAction: route({
    method: 'DELETE',
    url: '/actions/:id',
    operationId: 'deleteAction',
    role: 'admin',
    summary: 'Delete an action (channels stop offering it, entries answer with their own text again)',
    tags: ['Actions'],
    schema: { params: ActionParams, response: { 200: object({ success: Type.Literal(true) }), ...ConsoleErrors } },
  }),
  testAction: route({
    method: 'POST',
    url: '/actions/:id/test',
    operationId: 'testAction',
    role: 'admin',
    summary: 'Call an action with the given parameters and show the request, the response and the rendered answer',
    description:
      'Every parameter (a `verified` one too) is taken from `parameters` and checked as in a chat (400 on a bad value). A `read` action is called ' +
      'for real; a `write` only with `confirm: true` (otherwise the request is shown and nothing is sent). The run is recorded with `chatId` null.',
    tags: ['Actions'],
    schema: {
      params: ActionParams,
      body: object({ parameters: ActionValues, confirm: Type.Optional(Type.Boolean()) }),
      response: { 200: ActionTestResult, ...ConsoleErrors },
    },
  }),
  listActionRuns: route({
    method: 'GET',
    url: '/actions/:id/runs',
    operationId: 'listActionRuns',
    role: 'agent',
    summary: "An action's runs, newest first",
    tags: ['Actions'],
    schema: {
      params: ActionParams,
      querystring: object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
        cursor: Type.Optional(Type.String({ maxLength: 100, description: '`nextCursor` of the previous page' })),
      }),
      response: { 200: object({ runs: Type.Array(ActionRun), nextCursor: nullable(Type.String()) }), ...ConsoleErrors },
    },
  }),
} as const;
