// A small JSON Schema checker for the keywords the webhook schemas use (type, const, enum, anyOf, properties,
// required, items, minimum, minLength, maxLength, pattern, format date-time). Unknown keywords are ignored and
// extra properties allowed: the spec lets new fields appear at any time.

export interface JsonSchema {
  type?: string;
  const?: unknown;
  enum?: readonly unknown[];
  anyOf?: readonly JsonSchema[];
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  items?: JsonSchema;
  minimum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}

const patterns = new Map<string, RegExp>();
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

/** The problems of `value` against `schema` (empty when valid), each naming the path, e.g. `/chat/id must be string`. */
export function validate(schema: JsonSchema, value: unknown, path = ''): string[] {
  const at = path || '/';
  if (schema.anyOf) {
    return schema.anyOf.some((option) => validate(option, value, path).length === 0) ? [] : [`${at} must match one of its types`];
  }
  if (schema.type !== undefined && !typeMatches(schema.type, value)) return [`${at} must be ${schema.type}`];
  if ('const' in schema && value !== schema.const) return [`${at} must be ${JSON.stringify(schema.const)}`];
  if (schema.enum && !schema.enum.includes(value)) return [`${at} must be one of ${schema.enum.join(', ')}`];
  const problems: string[] = [];
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) problems.push(`${at} is too short`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) problems.push(`${at} is too long`);
    if (schema.pattern !== undefined) {
      let pattern = patterns.get(schema.pattern);
      if (!pattern) patterns.set(schema.pattern, (pattern = new RegExp(schema.pattern, 'u')));
      if (!pattern.test(value)) problems.push(`${at} must match ${schema.pattern}`);
    }
    if (schema.format === 'date-time' && (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value)))) {
      problems.push(`${at} must be a date-time`);
    }
  }
  if (typeof value === 'number' && schema.minimum !== undefined && value < schema.minimum) problems.push(`${at} must be >= ${schema.minimum}`);
  if (Array.isArray(value) && schema.items) {
    const items = schema.items;
    value.forEach((item, index) => problems.push(...validate(items, item, `${path}/${index}`)));
  }
  if (typeMatches('object', value)) {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in object)) problems.push(`${path}/${name} is required`);
    for (const [name, inner] of Object.entries(schema.properties ?? {})) {
      if (name in object) problems.push(...validate(inner, object[name], `${path}/${name}`));
    }
  }
  return problems;
}
