// The loader served at /widget.js: `<script src="…/widget.js" data-channel="…" async></script>` adds a launcher
// button (`Open chat`) and the chat frame served from Parley's origin, and defines `window.parley(…)`:
//   parley('open') / parley('close')
//   parley('identify', { identifier, name, email, identifierHash })
//   parley('send', text)
//   parley('reset')                       (the customer logged out: the next visitor starts anew)
// The visitor's token is kept here, in the host page's own localStorage (`parley:visitor:<channel>`): a frame from
// another site gets partitioned or no storage (Safari, Firefox strict, Brave, Chrome blocking third-party cookies),
// so only the page's own storage keeps the visitor across reloads, pages and visits. Storage blocked: the
// conversation lasts as long as the page.
//   parley('on', 'message' | 'open' | 'close' | 'unread', handler) / parley('off', event, handler)
//                                         ('unread': the count of replies the visitor has not seen)
// The script tag may carry data-csat-delay="<seconds>" (default 30): how long the team's last message stays on
// screen before the frame asks `How did we do?` about an ended conversation.
// Calls made before the script loaded are queued by a stub `window.parley = window.parley || function () {
// (window.parley.q = window.parley.q || []).push(arguments) }` and run once it is here.
import { isProtocolMessage, isVisitorState, type FrameToHost, type HostToFrame, type Identity, type VisitorState } from './protocol.ts';

type EventName = 'message' | 'open' | 'close' | 'unread';
type Handler = (detail?: unknown) => void;
interface ParleyFunction {
  (command: string, ...args: unknown[]): void;
  q?: ArrayLike<unknown>[];
  loaded?: boolean;
}
declare global {
  interface Window {
    parley?: ParleyFunction;
  }
}

const FRAME_WIDTH = 370;
/** Set on <html> while the first copy of the loader starts. */
const STARTING = 'data-parley-starting';
const FRAME_HEIGHT = 560;
/** Below this width the open chat takes the whole screen and the page behind does not scroll. */
const SMALL_SCREEN = '(max-width: 479px)';

function start(): void {
  const script = document.currentScript as HTMLScriptElement | null;
  const channel = script?.dataset.channel;
  if (!script || !channel) {
    console.warn('Parley chat widget: the script tag needs data-channel="<channel id>"');
    return;
  }
  // The snippet pasted twice: the first copy runs (the check below makes the start asynchronous).
  if (window.parley?.loaded || document.documentElement.hasAttribute(STARTING)) return;
  document.documentElement.setAttribute(STARTING, '');
  const base = new URL(script.src, location.href).origin;
  const csatDelay = script.dataset.csatDelay;
  void embedAllowed(base, channel).then((allowed) => {
    if (allowed) run(channel, base, csatDelay);
  });
}

/**
 * Whether Parley lets this page show the channel's widget. Refused: one console line says why and what to do, and
 * no frame is added (the browser would only refuse it silently). The check failing otherwise (offline, an older
 * server) is not a refusal: the frame's own checks still apply.
 */
async function embedAllowed(base: string, channel: string): Promise<boolean> {
  try {
    const url = `${base}/widget/v1/embed?${new URLSearchParams({ channel, origin: location.origin }).toString()}`;
    const response = await fetch(url, { credentials: 'omit' });
    if (response.status === 404) {
      console.warn(`Parley chat widget: no widget channel "${channel}" at ${base}; check data-channel in the script tag.`);
      return false;
    }
    if (!response.ok) return true;
    const answer = (await response.json()) as { allowed?: unknown };
    if (answer.allowed !== false) return true;
    console.warn(
      `Parley chat widget: this page's origin ${location.origin} is not allowed to show channel ${channel}. ` +
        `Add ${location.origin} under Allowed origins on the channel's page in Parley (or press "Allow ${location.origin}" there), then reload.`,
    );
    return false;
  } catch {
    return true;
  }
}

/** The widget on the page: launcher, frame, the messages between them and `window.parley`. */
function run(channel: string, base: string, csatDelay: string | undefined): void {
  const queued = Array.from(window.parley?.q ?? []);
  const storageKey = `parley:visitor:${channel}`;
  let state: VisitorState | null = loadVisitor(storageKey);
  const keep = (next: VisitorState | null) => {
    state = next;
    saveVisitor(storageKey, next);
  };

  const handlers: Record<EventName, Set<Handler>> = { message: new Set(), open: new Set(), close: new Set(), unread: new Set() };
  let identity: Identity | null = null;
  let helloSeen = false;
  let isOpen = false;
  const toFrame: HostToFrame[] = [];

  const { host, launcher, launcherText, badge, unreadText, frame } = createElements(channel, base, csatDelay);

  // Full screen on a small screen: the page behind keeps still (its own overflow is given back on close).
  const smallScreen = window.matchMedia(SMALL_SCREEN);
  const scrollLock = createScrollLock();
  const lockScroll = () => scrollLock(isOpen && smallScreen.matches);
  smallScreen.addEventListener('change', lockScroll);

  const post = (message: HostToFrame) => {
    if (helloSeen && frame.contentWindow) frame.contentWindow.postMessage(message, base);
    else toFrame.push(message);
  };
  const emit = (event: EventName, detail?: unknown) => callEach(handlers[event], detail);
  const showUnread = createUnreadCount(badge, unreadText, (count) => emit('unread', count));
  const open = () => {
    if (isOpen || launcher.hidden) return;
    isOpen = true;
    frame.hidden = false;
    launcher.hidden = true;
    lockScroll();
    // Focus moves into the chat (the frame then focuses its first field).
    frame.focus();
    post({ parley: 1, type: 'open' });
    emit('open');
  };
  const close = () => {
    if (!isOpen) return;
    isOpen = false;
    frame.hidden = true;
    launcher.hidden = false;
    lockScroll();
    post({ parley: 1, type: 'close' });
    launcher.focus();
    emit('close');
  };
  launcher.addEventListener('click', open);
  // Escape closes the chat from the page too (from inside the frame, the frame asks to close).
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && isOpen) close();
  });

  window.addEventListener('message', (event: MessageEvent) => {
    if (event.source !== frame.contentWindow || event.origin !== base || !isProtocolMessage(event.data)) return;
    const message = event.data as FrameToHost;
    switch (message.type) {
      case 'hello':
        helloSeen = true;
        frame.contentWindow?.postMessage({ parley: 1, type: 'init', identity, state, page: location.origin + location.pathname } satisfies HostToFrame, base);
        for (const pending of toFrame.splice(0)) frame.contentWindow?.postMessage(pending, base);
        break;
      case 'ready': {
        for (const element of [launcher, frame]) element.classList.toggle('left', message.look.position === 'left');
        launcher.style.background = message.look.color;
        launcherText.textContent = message.look.launcherText;
        if (!isOpen) launcher.hidden = false;
        break;
      }
      case 'refused':
        if (!isOpen) launcher.hidden = false;
        break;
      case 'blocked':
        console.warn(`Parley chat widget: ${message.message}`);
        host.remove();
        break;
      case 'message':
        emit('message', message.message);
        break;
      case 'unread':
        if (typeof message.count === 'number') showUnread(message.count);
        break;
      case 'store':
        if (isVisitorState(message.state)) keep(message.state);
        break;
      case 'close':
        close();
        break;
    }
  });

  const api = createApi({
    open,
    close,
    identify: (given) => {
      identity = given;
      // Before the frame said hello, `init` will carry it.
      if (helloSeen) post({ parley: 1, type: 'identify', identity: given });
    },
    send: (text) => post({ parley: 1, type: 'send', text }),
    reset: () => {
      identity = null;
      keep(null);
      post({ parley: 1, type: 'reset' });
    },
    handlers,
  });
  window.parley = api;
  for (const call of queued) api(...(Array.from(call) as [string, ...unknown[]]));

  const attach = () => document.body.append(host);
  if (document.body) attach();
  else document.addEventListener('DOMContentLoaded', attach);
}

/** The visitor kept in the host page's storage; null when there is none (or no storage, or not ours). */
function loadVisitor(storageKey: string): VisitorState | null {
  try {
    const kept: unknown = JSON.parse(localStorage.getItem(storageKey) ?? 'null');
    if (isVisitorState(kept)) return kept;
  } catch {
    // no storage (or not ours): the frame's own storage, if any, is the fallback
  }
  return null;
}

/** Keeps the visitor in the host page's storage (null: forgets it). */
function saveVisitor(storageKey: string, next: VisitorState | null): void {
  try {
    if (next) localStorage.setItem(storageKey, JSON.stringify(next));
    else localStorage.removeItem(storageKey);
  } catch {
    // storage blocked: kept for this page only
  }
}

/** The widget's elements, in a shadow root of their own: the launcher button with its unread badge, and the frame. */
function createElements(channel: string, base: string, csatDelay: string | undefined) {
  const host = document.createElement('div');
  host.setAttribute('data-parley-widget', channel);
  const shadow = host.attachShadow({ mode: 'open' });
  const style = document.createElement('style');
  style.textContent = `
    :host { all: initial; }
    button { position: fixed; bottom: 20px; right: 20px; z-index: 2147483000; border: 0; border-radius: 24px; padding: 12px 20px;
      font: 600 15px/1.2 system-ui, sans-serif; color: #fff; cursor: pointer; box-shadow: 0 4px 16px rgba(0,0,0,.2); }
    button:focus-visible { outline: 3px solid #000; outline-offset: 2px; }
    iframe { position: fixed; bottom: 20px; right: 20px; z-index: 2147483001; border: 0; border-radius: 12px;
      width: ${FRAME_WIDTH}px; height: ${FRAME_HEIGHT}px; max-width: calc(100vw - 24px); max-height: calc(100vh - 40px);
      box-shadow: 0 8px 32px rgba(0,0,0,.25); background: #fff; }
    .left { left: 20px; right: auto; }
    @media ${SMALL_SCREEN} {
      iframe, iframe.left { inset: 0; width: 100vw; height: 100vh; height: 100dvh; max-width: none; max-height: none;
        border-radius: 0; box-shadow: none; }
    }
    .badge { position: absolute; top: -6px; right: -6px; min-width: 20px; height: 20px; border-radius: 10px; padding: 0 6px;
      background: #dc2626; color: #fff; font: 700 12px/20px system-ui, sans-serif; text-align: center; }
    [hidden] { display: none !important; }
  `;
  const launcher = document.createElement('button');
  launcher.type = 'button';
  launcher.setAttribute('aria-label', 'Open chat');
  launcher.style.background = '#2563eb';
  launcher.hidden = true;
  const launcherText = document.createElement('span');
  launcherText.textContent = 'Chat';
  // Replies the visitor has not seen (the accessible name stays `Open chat`; the count is its description).
  const badge = document.createElement('span');
  badge.className = 'badge';
  badge.id = 'parley-unread';
  badge.hidden = true;
  badge.setAttribute('aria-hidden', 'true');
  const unreadText = document.createElement('span');
  unreadText.id = 'parley-unread-text';
  unreadText.hidden = true;
  launcher.setAttribute('aria-describedby', unreadText.id);
  launcher.append(launcherText, badge, unreadText);
  const frame = document.createElement('iframe');
  frame.title = 'Chat';
  frame.hidden = true;
  frame.src = `${base}/widget/frame?channel=${encodeURIComponent(channel)}${csatDelay && /^\d{1,4}$/.test(csatDelay) ? `&csatDelay=${csatDelay}` : ''}`;
  frame.setAttribute('allow', 'clipboard-write');
  shadow.append(style, launcher, frame);
  return { host, launcher, launcherText, badge, unreadText, frame };
}

/** Sets the page's overflow hidden while `lock` holds; its own overflow is given back after. */
function createScrollLock(): (lock: boolean) => void {
  let pageOverflow: [string, string] | null = null;
  return (lock) => {
    const root = document.documentElement;
    if (lock && !pageOverflow) {
      pageOverflow = [root.style.overflow, document.body.style.overflow];
      root.style.overflow = 'hidden';
      document.body.style.overflow = 'hidden';
    } else if (!lock && pageOverflow) {
      [root.style.overflow, document.body.style.overflow] = pageOverflow;
      pageOverflow = null;
    }
  };
}

/** Calls each handler of an event; one that throws is logged and the others still run. */
function callEach(handlers: Iterable<Handler>, detail?: unknown): void {
  for (const handler of handlers) {
    try {
      handler(detail);
    } catch (error) {
      console.error(error);
    }
  }
}

/** The count of replies the visitor has not seen, on the launcher's badge and in the page title; `changed` is told each new count. */
function createUnreadCount(badge: HTMLElement, unreadText: HTMLElement, changed: (count: number) => void): (count: number) => void {
  let unread = 0;
  /** The page title carries the count as `(N) ` while there is one (and is given back without it). */
  let titled = false;
  return (count) => {
    if (count === unread) return;
    unread = count;
    badge.textContent = String(count);
    badge.hidden = count === 0;
    unreadText.textContent = count === 0 ? '' : `${count} unread ${count === 1 ? 'reply' : 'replies'}`;
    const bare = titled ? document.title.replace(/^\(\d+\) /, '') : document.title;
    titled = count > 0;
    document.title = titled ? `(${count}) ${bare}` : bare;
    changed(count);
  };
}

/** What the page's `parley(…)` commands do once their arguments are checked. */
interface Commands {
  open(): void;
  close(): void;
  identify(identity: Identity): void;
  send(text: string): void;
  reset(): void;
  handlers: Record<EventName, Set<Handler>>;
}

/** `window.parley`: each command's arguments checked (a wrong call is warned about on the console, never thrown). */
function createApi({ open, close, identify, send, reset, handlers }: Commands): ParleyFunction {
  const api: ParleyFunction = (command: string, ...args: unknown[]) => {
    switch (command) {
      case 'open':
        return open();
      case 'close':
        return close();
      case 'identify': {
        const given = args[0] as Identity | undefined;
        if (!given || typeof given.identifier !== 'string') {
          console.warn("Parley chat widget: parley('identify', { identifier, name, email, identifierHash })");
          return;
        }
        return identify(given);
      }
      case 'send':
        if (typeof args[0] === 'string' && args[0].trim() !== '') send(args[0]);
        return;
      case 'reset':
        return reset();
      case 'on':
      case 'off': {
        const [event, handler] = args as [EventName, Handler];
        if (!(event in handlers) || typeof handler !== 'function') return;
        if (command === 'on') handlers[event].add(handler);
        else handlers[event].delete(handler);
        return;
      }
      default:
        console.warn(`Parley chat widget: unknown command "${command}"`);
    }
  };
  api.loaded = true;
  return api;
}

start();
