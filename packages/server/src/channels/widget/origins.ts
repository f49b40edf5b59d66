// Origins as the widget compares them: scheme, host and port as a browser reports them.

/** `https://Shop.example:443/` → `https://shop.example`; undefined when it is not an http(s) origin. */
export function normalizeOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
