// The one way the web account talks to the server: `/console/v1`, authenticated by the HttpOnly session
// cookie (never a token in script or URL), with the CSRF header and the member's language on every call.
import { currentLang, t } from './i18n.ts';

export class ApiError extends Error {
  /** The server's sentences one by one (a validation failure may give several), for forms that place them by field. */
  readonly messages: string[];
  constructor(
    readonly status: number,
    message: string,
    messages: string[] = [message],
  ) {
    super(message);
    this.messages = messages;
  }
}

type Query = Record<string, string | number | boolean | undefined>;

let onUnauthorized: () => void = () => {};
/** What to do when the session is gone (the app shows the sign-in page). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

function consoleUrl(path: string, query: Query = {}): URL {
  const url = new URL(`/console/v1${path}`, location.origin);
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
  return url;
}

function consoleHeaders(): Record<string, string> {
  return { 'x-requested-with': 'parley', userlang: currentLang() };
}

/** `body` goes as JSON; `form` as multipart/form-data (a file upload), its boundary set by the browser. */
export async function api<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: { body?: unknown; query?: Query; form?: FormData } = {},
): Promise<T> {
  const url = consoleUrl(path, options.query);
  const headers = consoleHeaders();
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
    throw new ApiError(response.status, serverMessage(body, response.status), serverMessages(body, response.status));
  }
  return body as T;
}

/** A file the console API makes (a CSV export), as a Blob the page saves; failures as `api`'s. */
export async function apiFile(path: string, query: Query = {}): Promise<Blob> {
  const response = await fetch(consoleUrl(path, query), { headers: consoleHeaders(), credentials: 'same-origin' });
  if (response.ok) return response.blob();
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text itself
  }
  if (response.status === 401) onUnauthorized();
  throw new ApiError(response.status, serverMessage(body, response.status));
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

function serverMessages(body: unknown, status: number): string[] {
  if (body && typeof body === 'object' && 'message' in body && Array.isArray(body.message) && body.message.length > 0) return body.message.map(String);
  return [serverMessage(body, status)];
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
