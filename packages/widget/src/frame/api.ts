// The visitor API as the frame calls it (same origin as the frame).
import type { StartSessionBody, WidgetConversation, WidgetMessage, WidgetSession } from '@parley/contracts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(path: string, init: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/widget/v1${path}`, init);
  } catch {
    throw new ApiError(0, 'No connection; check your network and try again');
  }
  const body = (await response.json().catch(() => undefined)) as { message?: unknown } | undefined;
  if (!response.ok) {
    const message = body?.message;
    throw new ApiError(response.status, Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : `Error ${response.status}`);
  }
  return body as T;
}

export function startSession(body: StartSessionBody): Promise<WidgetSession> {
  return call('/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

export function history(token: string, conversation: string): Promise<{ messages: WidgetMessage[] }> {
  return call(`/messages?conversation=${encodeURIComponent(conversation)}`, { headers: { authorization: `Bearer ${token}` } });
}

export function conversations(token: string): Promise<{ conversations: WidgetConversation[] }> {
  return call('/conversations', { headers: { authorization: `Bearer ${token}` } });
}

export function newConversation(token: string): Promise<{ conversation: WidgetConversation }> {
  return call('/conversations', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
}

export function send(token: string, conversation: string, text: string, files: readonly File[]): Promise<{ message: WidgetMessage | null }> {
  const path = `/messages?conversation=${encodeURIComponent(conversation)}`;
  if (files.length === 0) {
    return call(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
  }
  const form = new FormData();
  form.append('text', text);
  for (const file of files) form.append('files', file, file.name);
  return call(path, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
}

export function updateDetails(token: string, details: { name?: string; email?: string }): Promise<{ name: string | null; email: string | null }> {
  return call('/visitor', {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(details),
  });
}

/** The visitor's rating of an ended conversation (`How did we do?`): 1–5 and an optional comment, once. */
export function rate(token: string, conversation: string, body: { conversationId: string; rating: number; comment?: string }): Promise<{ success: true }> {
  return call(`/csat?conversation=${encodeURIComponent(conversation)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}
