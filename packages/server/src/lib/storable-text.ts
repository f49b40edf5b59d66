// Text PostgreSQL cannot hold made storable, for input that must be kept rather than refused (a messenger's
// update: it would be sent again forever). The API surfaces refuse such text instead (http/validation.ts).

const REPLACEMENT = '\ufffd';

/** The string with each unpaired UTF-16 surrogate and each NUL replaced by U+FFFD. */
export function storableText(value: string): string {
  return value.toWellFormed().replaceAll('\u0000', REPLACEMENT);
}

/** An own property set as JSON.parse makes it (a plain assignment to `__proto__` would set the prototype). */
function put(record: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * A parsed JSON value with every string (property names included) made storable, and whether anything was
 * replaced. Objects and arrays are changed in place; walked with a stack, since a body may be nested deeper
 * than the call stack allows.
 */
export function storableJson(value: unknown): { value: unknown; replaced: boolean } {
  let replaced = false;
  const clean = (text: string): string => {
    const storable = storableText(text);
    if (storable !== text) replaced = true;
    return storable;
  };
  if (typeof value === 'string') return { value: clean(value), replaced };
  const pending: unknown[] = [value];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      node.forEach((item: unknown, index) => {
        if (typeof item === 'string') node[index] = clean(item);
        else if (typeof item === 'object' && item !== null) pending.push(item);
      });
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const [key, item] of Object.entries(record)) {
      const storableKey = clean(key);
      const storableItem = typeof item === 'string' ? clean(item) : item;
      if (typeof item === 'object' && item !== null) pending.push(item);
      if (storableKey !== key) delete record[key];
      if (storableKey !== key || storableItem !== item) put(record, storableKey, storableItem);
    }
  }
  return { value, replaced };
}
