// Messages between the loader (host page) and the frame (Parley's origin), sent with postMessage. Each side
// accepts them only from the other's window and origin.
import type { VisitorIdentity, WidgetLook, WidgetMessage } from '@parley/contracts';

export type Identity = VisitorIdentity;

/** Frame → host page. */
export type FrameToHost =
  | { parley: 1; type: 'hello' }
  | { parley: 1; type: 'ready'; look: WidgetLook }
  /** The visitor is refused (identity, limits): the launcher shows, the frame explains. */
  | { parley: 1; type: 'refused'; message: string }
  /** This page may not show the chat: the widget removes itself. */
  | { parley: 1; type: 'blocked'; message: string }
  | { parley: 1; type: 'message'; message: WidgetMessage }
  | { parley: 1; type: 'close' };

/** Host page → frame. */
export type HostToFrame =
  | { parley: 1; type: 'init'; identity: Identity | null }
  | { parley: 1; type: 'identify'; identity: Identity }
  | { parley: 1; type: 'open' }
  | { parley: 1; type: 'send'; text: string }
  /** The customer logged out of the site: forget the visitor, start anonymous. */
  | { parley: 1; type: 'reset' };

export function isProtocolMessage(data: unknown): data is { parley: 1; type: string } {
  return typeof data === 'object' && data !== null && (data as { parley?: unknown }).parley === 1 && typeof (data as { type?: unknown }).type === 'string';
}
