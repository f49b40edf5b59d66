// Messages between the loader (host page) and the frame (Parley's origin), sent with postMessage. Each side
// accepts them only from the other's window and origin: the loader from PUBLIC_URL's origin (its own script's),
// the frame from an origin the channel allows to embed it.
import type { VisitorIdentity, WidgetLook, WidgetMessage } from '@parley/contracts';

export type Identity = VisitorIdentity;

/**
 * What the frame keeps about the visitor across page loads. The loader holds it in the host page's own storage
 * (first-party, so browsers keep it); the frame's storage, partitioned or blocked on another site, is a fallback.
 */
export interface VisitorState {
  token: string;
  /** `createdAt` of the last message the visitor saw (the chat open and the page in view): later replies are unread. */
  seen?: string;
}

export function isVisitorState(value: unknown): value is VisitorState {
  return typeof value === 'object' && value !== null && typeof (value as { token?: unknown }).token === 'string';
}

/** Frame → host page. */
export type FrameToHost =
  | { parley: 1; type: 'hello' }
  | { parley: 1; type: 'ready'; look: WidgetLook }
  /** The visitor is refused (identity, limits): the launcher shows, the frame explains. */
  | { parley: 1; type: 'refused'; message: string }
  /** This page may not show the chat: the widget removes itself. */
  | { parley: 1; type: 'blocked'; message: string }
  | { parley: 1; type: 'message'; message: WidgetMessage }
  /** Keep this in the host page's storage (a session started: a new visitor's token, or a renewed one). */
  | { parley: 1; type: 'store'; state: VisitorState }
  /** Replies the visitor has not seen (the launcher's badge, the page title, `parley('on', 'unread')`). */
  | { parley: 1; type: 'unread'; count: number }
  | { parley: 1; type: 'close' };

/** Host page → frame. */
export type HostToFrame =
  /** `page`: the host page's origin and path (no query or fragment: they can carry tokens), for the team's customer card. */
  | { parley: 1; type: 'init'; identity: Identity | null; state: VisitorState | null; page: string }
  | { parley: 1; type: 'identify'; identity: Identity }
  | { parley: 1; type: 'open' }
  | { parley: 1; type: 'close' }
  | { parley: 1; type: 'send'; text: string }
  /** The customer logged out of the site: forget the visitor, start anonymous. */
  | { parley: 1; type: 'reset' };

export function isProtocolMessage(data: unknown): data is { parley: 1; type: string } {
  return typeof data === 'object' && data !== null && (data as { parley?: unknown }).parley === 1 && typeof (data as { type?: unknown }).type === 'string';
}
