// Request validation. Two Ajv instances: query strings, params and headers are text, so they are coerced
// to the schema's types; JSON bodies are not (a number where a string is due is a 400, not a silent cast).
// Neither removes unknown properties: every object schema is closed, so an unknown parameter is a 400.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ruValidationTemplates, translateValidation, type ConsoleLanguage } from './console/i18n.ts';
import { consoleValidationSentence } from './console/validation-sentences.ts';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const base: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  return ajv;
}

const bodyAjv = withFormats(new Ajv({ ...base, coerceTypes: false }));
const textAjv = withFormats(new Ajv({ ...base, coerceTypes: true }));

/** Why a string cannot be stored as PostgreSQL text (or JSON), or undefined when it can. */
export function unstorableText(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain NUL characters (\\u0000)';
  if (!value.isWellFormed()) return 'must not contain unpaired UTF-16 surrogates (e.g. \\ud800 alone)';
  return undefined;
}

/** How deep a JSON body may nest (the body itself is level 1); deeper is a 400 before anything walks it. */
export const MAX_BODY_DEPTH = 64;
export const TOO_DEEP_MESSAGE = `Body nested deeper than ${MAX_BODY_DEPTH} levels`;

function problem(instancePath: string, message: string): ErrorObject {
  return { keyword: 'storableText', instancePath, schemaPath: '#/storableText', params: {}, message };
}

const tooDeep: ErrorObject = {
  keyword: 'maxDepth',
  instancePath: '',
  schemaPath: '#/maxDepth',
  params: { limit: MAX_BODY_DEPTH },
  message: TOO_DEEP_MESSAGE,
};

/** A value still to look at: the item `key` of its parent (paths are only spelled out for an error). */
interface Pending {
  value: unknown;
  key: string | number | undefined;
  parent: Pending | undefined;
  level: number;
}

/** The JSON pointer of a value, as Ajv's `instancePath`. */
function pathOf(item: Pending | undefined): string {
  const segments: string[] = [];
  for (let at = item; at?.key !== undefined; at = at.parent) segments.push(String(at.key).replaceAll('~', '~0').replaceAll('/', '~1'));
  return segments.reverse().map((segment) => `/${segment}`).join('');
}

/** Whether JSON text nests brackets deeper than `limit`, counted without parsing (brackets in strings skipped). */
export function jsonNestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

/**
 * The first string (property names included) that the database cannot store, as an Ajv-style error, or a body
 * nested deeper than MAX_BODY_DEPTH: every validated part of every request (query, params, headers, JSON or
 * multipart body) is checked before its schema, so NUL bytes, lone surrogates and stack-deep nesting are a 400
 * at the door, never a database error or a stack overflow. Walked with a stack, in document order.
 */
export function findUnstorableText(data: unknown): ErrorObject | undefined {
  const pending: Pending[] = [{ value: data, key: undefined, parent: undefined, level: 1 }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    if (typeof item.key === 'string') {
      const message = unstorableText(item.key);
      if (message) return problem(pathOf(item.parent), `property names ${message}`);
    }
    const { value, level } = item;
    if (typeof value === 'string') {
      const message = unstorableText(value);
      if (message) return problem(pathOf(item), message);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (level > MAX_BODY_DEPTH) return tooDeep;
    // Pushed last to first, so they are looked at in document order.
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1) pending.push({ value: value[i] as unknown, key: i, parent: item, level: level + 1 });
    } else {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i] as string;
        pending.push({ value: record[key], key, parent: item, level: level + 1 });
      }
    }
  }
  return undefined;
}

export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** `validate` preceded by the storable-text check; every surface's validator compiler goes through it. */
export function checkingStorableText(validate: CompiledValidator): CompiledValidator {
  const checked: CompiledValidator = (data) => {
    const unstorable = findUnstorableText(data);
    if (unstorable) {
      checked.errors = [unstorable];
      return false;
    }
    const valid = validate(data);
    checked.errors = validate.errors ?? null;
    return valid;
  };
  return checked;
}

/**
 * A validator compiled on its first use: each route's validator is compiled by Ajv on the route's first request,
 * not at start (compiling every schema of every surface took a third of a second and several MB at start, mostly
 * for routes a server never sees).
 */
export function compiledOnFirstUse(compile: () => CompiledValidator): CompiledValidator {
  let compiled: CompiledValidator | undefined;
  const validate: CompiledValidator = (data) => {
    compiled ??= compile();
    const valid = compiled(data);
    validate.errors = compiled.errors ?? null;
    return valid;
  };
  return validate;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  compiledOnFirstUse(() => checkingStorableText((httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object)));

function fieldPath(error: ErrorObject, context: string): string {
  const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  return path || context;
}

/**
 * A nullable field (`anyOf [T, null]`) that fails T also reports "must be null" and "must match a schema in
 * anyOf"; when a more specific problem exists at the same place, only that one is worth reading.
 */
function withoutUnionNoise(errors: readonly ErrorObject[]): ErrorObject[] {
  const noise = (e: ErrorObject) => e.keyword === 'anyOf' || (e.keyword === 'type' && e.params.type === 'null');
  return errors.filter(
    (error) => !noise(error) || !errors.some((other) => other.instancePath === error.instancePath && !noise(other)),
  );
}

const templates = {
  en: {
    unknownProperty: (name: string) => `property ${name} should not exist`,
    required: (name: string) => `${name} is required`,
    enum: (path: string, values: string) => `${path} must be one of: ${values}`,
    tooDeep: () => TOO_DEEP_MESSAGE,
  },
  ru: ruValidationTemplates,
};

/**
 * One readable sentence per problem, e.g. `property foo should not exist`, `limit must be <= 1000`; for the console
 * (`sentences`), the field's name and its rule as a form shows them (`Short code: letters, digits, _ and - only, up to 50`).
 */
export function describeValidationErrors(
  errors: readonly ErrorObject[],
  context: string,
  lang: ConsoleLanguage = 'en',
  sentences = false,
): string[] {
  const say = templates[lang];
  const messages = translateValidation(withoutUnionNoise(errors), lang).map((error) => {
    const path = fieldPath(error, context);
    const prefix = error.instancePath ? `${path}.` : '';
    const sentence = sentences ? consoleValidationSentence(error, path, lang) : undefined;
    if (sentence !== undefined) return sentence;
    switch (error.keyword) {
      case 'additionalProperties':
        return say.unknownProperty(`${prefix}${String(error.params.additionalProperty)}`);
      case 'required':
        return say.required(`${prefix}${String(error.params.missingProperty)}`);
      case 'enum':
        return say.enum(path, (error.params.allowedValues as unknown[]).join(', '));
      case 'const':
        return `${path} must be ${JSON.stringify(error.params.allowedValue)}`;
      case 'maxDepth':
        return say.tooDeep(Number(error.params.limit));
      default:
        return `${path} ${error.message ?? 'is invalid'}`;
    }
  });
  return [...new Set(messages)];
}

/**
 * Fastify's error of a request that failed validation. The error handler describes `error.validation` itself
 * (describeValidationErrors), so the message stays short and no stack is captured: a rejected request is a common,
 * expected answer, not a fault to trace.
 */
export function schemaErrorFormatter(_errors: unknown, dataVar: string): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new Error(`${dataVar} is invalid`);
  } finally {
    Error.stackTraceLimit = limit;
  }
}
