// The one way the web account talks to the server: `/console/v1`, authenticated by the HttpOnly session
// cookie (never a token in script or URL), with the CSRF header and the member's language on every call.
import { currentLang } from './i18n.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined>;

let onUnauthorized: () => void = () => {};
/** What to do when the session is gone (the app shows the sign-in page). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/** `body` goes as JSON; `form` as multipart/form-data (a file upload), its boundary set by the browser. */
export async function api<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: { body?: unknown; query?: Query; form?: FormData } = {},
): Promise<T> {
  const url = new URL(`/console/v1${path}`, location.origin);
  for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
  const headers: Record<string, string> = { 'x-requested-with': 'parley', userlang: currentLang() };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    credentials: 'same-origin',
    body: options.form ?? (options.body === undefined ? null : JSON.stringify(options.body)),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  if (!response.ok) {
    if (response.status === 401 && !path.startsWith('/auth/')) onUnauthorized();
    const message = body && typeof body === 'object' && 'message' in body && typeof body.message === 'string' ? body.message : `HTTP ${response.status}`;
    throw new ApiError(response.status, message);
  }
  return body as T;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
