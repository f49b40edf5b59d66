// The frame's link to the page that embeds it: the channel, the origins it may talk to, the host's origin and page
// once `init` told them, the messages to the host, and the frame's own storage of the visitor state (a fallback).
import { isVisitorState, type FrameToHost, type VisitorState } from '../protocol.ts';

const query = new URLSearchParams(location.search);
export const channelId = query.get('channel') ?? '';
/**
 * How long the team's last message is on screen before `How did we do?` (the script tag's data-csat-delay, in seconds,
 * 0–3600; default 30 s): a test, or a shop that wants it sooner or later, sets it.
 */
export const csatDelayMs = (() => {
  const seconds = Number(query.get('csatDelay') ?? 'NaN');
  return Number.isInteger(seconds) && seconds >= 0 && seconds <= 3600 ? seconds * 1000 : 30_000;
})();
const storageKey = `parley:visitor:${channelId}`;
/** The origins the channel allows to embed it (the frame page lists them): the only ones the frame talks to. */
export const allowedOrigins = (document.getElementById('app')?.dataset.origins ?? '').split(' ').filter(Boolean);

export const host = {
  /** The embedding page's origin: the one its `init` came from (checked against the channel's list). */
  origin: '',
  /** The host page the widget was opened on (origin and path, as `init` gave it): sent when the session starts. */
  page: '',
};

export function toHost(message: FrameToHost): void {
  if (window.parent !== window && host.origin) window.parent.postMessage(message, host.origin);
}

/** `hello` carries nothing: sent to the parent's origin where the browser tells it, else to each allowed one. */
export function helloToHost(): void {
  if (window.parent === window) return;
  const parent = location.ancestorOrigins?.[0];
  const targets = parent && allowedOrigins.includes(parent) ? [parent] : allowedOrigins;
  for (const target of targets) window.parent.postMessage({ parley: 1, type: 'hello' } satisfies FrameToHost, target);
}

/** The frame's own storage: only a fallback (partitioned or blocked when the page is on another site). */
export function readOwnState(): VisitorState | null {
  try {
    const kept = localStorage.getItem(storageKey);
    if (kept === null) return null;
    if (!kept.startsWith('{')) return { token: kept }; // a token kept before the host page kept it
    const parsed: unknown = JSON.parse(kept);
    return isVisitorState(parsed) ? parsed : null;
  } catch {
    return null; // storage blocked: the host page's is all there is
  }
}
export function writeOwnState(state: VisitorState | null): void {
  try {
    if (state) localStorage.setItem(storageKey, JSON.stringify(state));
    else localStorage.removeItem(storageKey);
  } catch {
    // see readOwnState
  }
}
