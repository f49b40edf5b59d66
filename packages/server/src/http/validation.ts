// Request validation. Two Ajv instances: query strings, params and headers are text, so they are coerced
// to the schema's types; JSON bodies are not (a number where a string is due is a 400, not a silent cast).
// Neither removes unknown properties: every object schema is closed, so an unknown parameter is a 400.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ruValidationTemplates, translateValidation, type ConsoleLanguage } from './console/i18n.ts';

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

/**
 * The first string (property names included) that the database cannot store, as an Ajv-style error: every
 * validated part of every request (query, params, headers, JSON or multipart body) is checked before its schema,
 * so NUL bytes and lone surrogates are a 400 at the door, never a database error.
 */
export function findUnstorableText(data: unknown, instancePath = ''): ErrorObject | undefined {
  const problem = (path: string, message: string): ErrorObject => ({
    keyword: 'storableText',
    instancePath: path,
    schemaPath: '#/storableText',
    params: {},
    message,
  });
  if (typeof data === 'string') {
    const message = unstorableText(data);
    return message ? problem(instancePath, message) : undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  for (const [key, value] of Array.isArray(data) ? data.entries() : Object.entries(data)) {
    const path = `${instancePath}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (typeof key === 'string') {
      const message = unstorableText(key);
      if (message) return problem(instancePath, `property names ${message}`);
    }
    const found = findUnstorableText(value, path);
    if (found) return found;
  }
  return undefined;
}

interface CompiledValidator {
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

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  checkingStorableText((httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object));

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
  },
  ru: ruValidationTemplates,
};

/** One readable sentence per problem, e.g. `property foo should not exist`, `limit must be <= 1000`. */
export function describeValidationErrors(
  errors: readonly ErrorObject[],
  context: string,
  lang: ConsoleLanguage = 'en',
): string[] {
  const say = templates[lang];
  const messages = translateValidation(withoutUnionNoise(errors), lang).map((error) => {
    const path = fieldPath(error, context);
    const prefix = error.instancePath ? `${path}.` : '';
    switch (error.keyword) {
      case 'additionalProperties':
        return say.unknownProperty(`${prefix}${String(error.params.additionalProperty)}`);
      case 'required':
        return say.required(`${prefix}${String(error.params.missingProperty)}`);
      case 'enum':
        return say.enum(path, (error.params.allowedValues as unknown[]).join(', '));
      case 'const':
        return `${path} must be ${JSON.stringify(error.params.allowedValue)}`;
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
