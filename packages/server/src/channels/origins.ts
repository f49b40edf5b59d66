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

/**
 * The host page a session records: an http(s) URL on the session's own origin, kept as origin and path only (a
 * query string or fragment can carry tokens); undefined otherwise, or past `max` characters.
 */
export function pageOnOrigin(value: string, origin: string, max: number): string | undefined {
  try {
    const url = new URL(value);
    if (normalizeOrigin(url.origin) !== origin) return undefined;
    const page = url.origin + url.pathname;
    return page.length <= max ? page : undefined;
  } catch {
    return undefined;
  }
}
