// The one way the web account talks to the server: `/console/v1`, authenticated by the HttpOnly session
// cookie (never a token in script or URL), with the CSRF header and the member's language on every call.
import { currentLang, t } from './i18n.ts';

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
    throw new ApiError(response.status, serverMessage(body, response.status));
  }
  return body as T;
}

/** The server's own words: its `message` (a list of validation sentences joined), else the status's meaning. */
function serverMessage(body: unknown, status: number): string {
  if (body && typeof body === 'object' && 'message' in body) {
    const { message } = body;
    if (typeof message === 'string' && message) return message;
    if (Array.isArray(message) && message.length > 0) return message.map(String).join('; ');
  }
  if (typeof body === 'string' && body.trim() && body.length < 300 && !body.trimStart().startsWith('<')) return body.trim();
  return t(STATUS_TEXTS[status] ?? (status >= 500 ? 'The server failed; try again in a moment.' : 'The request was refused.'));
}

const STATUS_TEXTS: Record<number, string> = {
  401: 'Your session ended; sign in again.',
  403: 'Forbidden for your role',
  404: 'Not found: it may have been deleted.',
  413: 'The file is too large.',
  429: 'Too many requests; wait a moment and try again.',
};

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
