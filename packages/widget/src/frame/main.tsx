// The chat frame, served from Parley's origin inside the host page: the visitor's conversation, live.
import type { WidgetConversation, WidgetMessage, WidgetSession } from '@parley/contracts';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { isProtocolMessage, isVisitorState, type FrameToHost, type HostToFrame, type Identity, type VisitorState } from '../protocol.ts';
import { ApiError, conversations as listConversations, history, newConversation, send, startSession } from './api.ts';
import { AwayNote } from './away.tsx';
import { connectLive } from './live.ts';
import { PreChatForm, type Details } from './pre-chat.tsx';
import './frame.css';

const channelId = new URLSearchParams(location.search).get('channel') ?? '';
const storageKey = `parley:visitor:${channelId}`;
/** The origins the channel allows to embed it (the frame page lists them): the only ones the frame talks to. */
const allowedOrigins = (document.getElementById('app')?.dataset.origins ?? '').split(' ').filter(Boolean);

/** The embedding page's origin: the one its `init` came from (checked against the channel's list). */
let hostOrigin = '';

/** The host page the widget was opened on (origin and path, as `init` gave it): sent when the session starts. */
let hostPage = '';

function toHost(message: FrameToHost): void {
  if (window.parent !== window && hostOrigin) window.parent.postMessage(message, hostOrigin);
}

/** `hello` carries nothing: sent to the parent's origin where the browser tells it, else to each allowed one. */
function helloToHost(): void {
  if (window.parent === window) return;
  const parent = location.ancestorOrigins?.[0];
  const targets = parent && allowedOrigins.includes(parent) ? [parent] : allowedOrigins;
  for (const target of targets) window.parent.postMessage({ parley: 1, type: 'hello' } satisfies FrameToHost, target);
}

/** The frame's own storage: only a fallback (partitioned or blocked when the page is on another site). */
function readOwnState(): VisitorState | null {
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
function writeOwnState(state: VisitorState | null): void {
  try {
    if (state) localStorage.setItem(storageKey, JSON.stringify(state));
    else localStorage.removeItem(storageKey);
  } catch {
    // see readOwnState
  }
}

/** Messages by id, in time order: history, live frames and send answers may repeat one another. */
function merge(list: WidgetMessage[], incoming: readonly WidgetMessage[]): WidgetMessage[] {
  const byId = new Map(list.map((message) => [message.id, message]));
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} kB`;
}

type Status = 'starting' | 'connecting' | 'live' | 'reconnecting';

const TYPING_MAX_MS = 60_000;
const AGENT_NAME = 'AI assistant';

/** Who wrote a message, as the visitor sees it above it. */
function authorOf(message: WidgetMessage): string {
  if (message.from === 'visitor') return 'You';
  if (message.from === 'agent') return AGENT_NAME;
  return message.name ?? 'Team';
}

function App() {
  const [session, setSession] = useState<WidgetSession | null>(null);
  const [messages, setMessages] = useState<WidgetMessage[]>([]);
  const [status, setStatus] = useState<Status>('starting');
  const [refusal, setRefusal] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [sending, setSending] = useState(false);
  const [identity, setIdentity] = useState<Identity | null | undefined>(undefined);
  /** Bumped by `reset`: a new session even when the identity stays null. */
  const [generation, setGeneration] = useState(0);
  const [conversations, setConversations] = useState<WidgetConversation[]>([]);
  const [conversationId, setConversationId] = useState<string | null>(null);
  const messagesRef = useRef<WidgetMessage[]>([]);
  const tokenRef = useRef<string>('');
  const stateRef = useRef<VisitorState | null>(null);
  const openRef = useRef(false);
  const unreadRef = useRef(0);
  const logRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const detailsRef = useRef<HTMLInputElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const [details, setDetails] = useState<Details>({ name: null, email: null });
  /** The pre-chat form was answered on this page. */
  const [detailsGiven, setDetailsGiven] = useState(false);
  const [away, setAway] = useState<WidgetSession['away']>(null);
  /** The agent is preparing a reply (cleared by a reply, the server's word, or after TYPING_MAX_MS). */
  const [typing, setTyping] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  const sendRef = useRef<(text: string, files: File[]) => Promise<boolean>>(async () => false);
  const readyRef = useRef(false);
  const pendingSends = useRef<string[]>([]);

  const add = (incoming: readonly WidgetMessage[], announce: boolean) => {
    const known = new Set(messagesRef.current.map((message) => message.id));
    messagesRef.current = merge(messagesRef.current, incoming);
    setMessages(messagesRef.current);
    if (announce) for (const message of incoming) if (!known.has(message.id)) toHost({ parley: 1, type: 'message', message });
    reckonUnread();
  };

  /** Seen while the chat is open and the page in view; the replies after the last one seen are unread. */
  const reckonUnread = () => {
    const state = stateRef.current;
    if (!state) return;
    const stored = messagesRef.current.filter((message) => !message.id.startsWith('local-'));
    const last = stored.at(-1);
    if (last && openRef.current && document.visibilityState === 'visible' && state.seen !== last.createdAt) {
      keepState({ ...state, seen: last.createdAt });
    }
    const seen = stateRef.current?.seen;
    const count = stored.filter((message) => message.from !== 'visitor' && (seen === undefined || message.createdAt > seen)).length;
    if (count !== unreadRef.current) {
      unreadRef.current = count;
      toHost({ parley: 1, type: 'unread', count });
    }
  };

  /**
   * Focus moves into the chat on open: the form's first field, the message box, or (not ready yet) Close chat. Not
   * when a text field of the chat already has it: the `open` message can come after the visitor (or a test) clicked
   * into the box and started typing, and moving focus then would send the rest of the typing elsewhere.
   */
  const focusFirst = () => {
    const active = document.activeElement;
    if (active instanceof HTMLTextAreaElement || (active instanceof HTMLInputElement && active.type !== 'file')) return;
    const input = inputRef.current;
    (detailsRef.current ?? (input && !input.disabled ? input : closeRef.current))?.focus();
  };

  /** What the next page load resumes from: kept here and, through the loader, in the host page's storage. */
  const keepState = (state: VisitorState | null) => {
    stateRef.current = state;
    writeOwnState(state);
    if (state) toHost({ parley: 1, type: 'store', state });
  };

  // The host page answers hello with the identity and the visitor state it has (or none), then may identify later.
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      if (event.source !== window.parent || !isProtocolMessage(event.data)) return;
      if (hostOrigin === '' ? !allowedOrigins.includes(event.origin) : event.origin !== hostOrigin) return;
      const message = event.data as HostToFrame;
      if (message.type === 'init') {
        hostOrigin = event.origin;
        // Longer than the server keeps (2,048 characters): not sent rather than cut.
        hostPage = typeof message.page === 'string' && message.page.length <= 2048 ? message.page : '';
        stateRef.current = isVisitorState(message.state) ? message.state : readOwnState();
        setIdentity(message.identity);
      } else if (hostOrigin === '') return; // nothing before init
      else if (message.type === 'identify') setIdentity(message.identity);
      else if (message.type === 'open') {
        openRef.current = true;
        reckonUnread();
        setTimeout(focusFirst, 0);
      } else if (message.type === 'close') openRef.current = false;
      else if (message.type === 'reset') {
        stateRef.current = null;
        writeOwnState(null);
        setDetailsGiven(false);
        setIdentity(null);
        setGeneration((n) => n + 1);
      }
      else if (message.type === 'send') {
        // Sent by the page before the conversation is open: kept until it is.
        if (readyRef.current) void sendRef.current(message.text, []);
        else pendingSends.current.push(message.text);
      }
    };
    const onVisibility = () => reckonUnread();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') toHost({ parley: 1, type: 'close' });
    };
    window.addEventListener('message', onMessage);
    document.addEventListener('visibilitychange', onVisibility);
    document.addEventListener('keydown', onKey);
    helloToHost();
    return () => {
      window.removeEventListener('message', onMessage);
      document.removeEventListener('visibilitychange', onVisibility);
      document.removeEventListener('keydown', onKey);
    };
  }, []);

  // A session for the current identity (resumed with the kept token), then the visitor's conversations.
  useEffect(() => {
    if (identity === undefined) return;
    let cancelled = false;
    const begin = async () => {
      setStatus('starting');
      let started: WidgetSession;
      try {
        const kept = stateRef.current?.token;
        started = await startSession({ channelId, origin: hostOrigin, ...(hostPage ? { page: hostPage } : {}), ...(kept ? { token: kept } : {}), ...(identity ? { identity } : {}) });
      } catch (failure) {
        if (cancelled) return;
        const message = failure instanceof Error ? failure.message : String(failure);
        if (failure instanceof ApiError && failure.status === 403 && /not allowed to show/.test(message)) {
          toHost({ parley: 1, type: 'blocked', message });
          return;
        }
        setSession(null);
        setRefusal(message);
        toHost({ parley: 1, type: 'refused', message });
        return;
      }
      if (cancelled) return;
      keepState({ ...stateRef.current, token: started.token });
      tokenRef.current = started.token;
      document.documentElement.style.setProperty('--accent', started.look.color);
      setRefusal(null);
      setDetails({ name: started.name, email: started.email });
      setAway(started.away);
      toHost({ parley: 1, type: 'ready', look: started.look });
      try {
        const list = (await listConversations(started.token)).conversations;
        if (cancelled) return;
        setConversations(list);
        setConversationId(list.at(-1)?.id ?? null);
      } catch (failure) {
        setError(failure instanceof Error ? failure.message : String(failure));
      }
      setSession(started);
    };
    void begin();
    return () => {
      cancelled = true;
    };
  }, [identity, generation]);

  // The open conversation: its history, then its live stream (resuming from its last message on reconnects).
  useEffect(() => {
    if (!session || !conversationId) return;
    let stop = () => {};
    let cancelled = false;
    messagesRef.current = [];
    setMessages([]);
    const begin = async () => {
      try {
        const past = await history(tokenRef.current, conversationId);
        if (cancelled) return;
        // Nothing known seen (a state kept before unread counts): what was there is not news.
        const state = stateRef.current;
        const last = past.messages.at(-1);
        if (state && state.seen === undefined && last) keepState({ ...state, seen: last.createdAt });
        add(past.messages, false);
      } catch (failure) {
        setError(failure instanceof Error ? failure.message : String(failure));
      }
      if (cancelled) return;
      readyRef.current = true;
      for (const text of pendingSends.current.splice(0)) await sendRef.current(text, []);
      stop = connectLive({
        token: () => tokenRef.current,
        conversation: conversationId,
        lastMessageId: () => messagesRef.current.filter((message) => !message.id.startsWith('local-')).at(-1)?.id,
        onMessage: (message) => {
          if (message.from !== 'visitor') setTyping(false);
          add([message], true);
        },
        onTyping: setTyping,
        onStatus: setStatus,
        onRefused: (_status, message) => {
          setRefusal(message);
          toHost({ parley: 1, type: 'refused', message });
        },
      });
    };
    void begin();
    return () => {
      cancelled = true;
      readyRef.current = false;
      setTyping(false);
      stop();
    };
  }, [session, conversationId]);

  // A reply job that died without a word: the indicator does not stay forever.
  useEffect(() => {
    if (!typing) return;
    const timer = setTimeout(() => setTyping(false), TYPING_MAX_MS);
    return () => clearTimeout(timer);
  }, [typing]);

  const startNewConversation = async () => {
    if (!session) return;
    try {
      const { conversation } = await newConversation(tokenRef.current);
      setConversations((list) => (list.some((c) => c.id === conversation.id) ? list : [...list, conversation]));
      setConversationId(conversation.id);
      setError(null);
      inputRef.current?.focus();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };

  // Back at the announced time: the away note goes (timers run at most ~24.8 days ahead).
  useEffect(() => {
    if (!away?.backAt) return;
    const timer = setTimeout(() => setAway(null), Math.min(2 ** 31 - 1, Math.max(0, Date.parse(away.backAt) - Date.now())));
    return () => clearTimeout(timer);
  }, [away]);

  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [messages]);

  sendRef.current = async (text: string, attached: File[]) => {
    if (!session || !conversationId || sending) return false;
    if (text.trim() === '' && attached.length === 0) return false;
    const limits = session.limits;
    if ([...text].length > limits.maxMessageLength) {
      setError(`Message too long: at most ${limits.maxMessageLength} characters`);
      return false;
    }
    if (attached.length > limits.maxFiles) {
      setError(`At most ${limits.maxFiles} files per message`);
      return false;
    }
    const big = attached.find((file) => file.size > limits.maxFileBytes);
    if (big) {
      setError(`File too large: ${big.name} (at most ${formatSize(limits.maxFileBytes)})`);
      return false;
    }
    setSending(true);
    setError(null);
    try {
      const result = await send(tokenRef.current, conversationId, text, attached);
      // null: the server ignored it (a banned visitor); it is shown here as sent, as it would be anywhere else.
      add([result.message ?? { id: `local-${Date.now()}`, role: 'user', from: 'visitor', name: null, text, attachments: [], createdAt: new Date().toISOString() }], true);
      return true;
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      return false;
    } finally {
      setSending(false);
    }
  };

  const submit = async (event?: Event) => {
    event?.preventDefault();
    if (await sendRef.current(draft, files)) {
      setDraft('');
      setFiles([]);
      if (fileRef.current) fileRef.current.value = '';
      inputRef.current?.focus();
    }
  };

  const look = session?.look;
  // The pre-chat form: while a required answer is missing, or before the first message while any is.
  const rules = session?.preChatForm ?? null;
  const missingRequired = rules !== null && ((rules.name === 'required' && !details.name) || (rules.email === 'required' && !details.email));
  const chatted = messages.length > 0 || conversations.some((conversation) => conversation.lastMessageAt !== null);
  const askDetails = rules !== null && !detailsGiven && (missingRequired || (!chatted && (!details.name || !details.email)));
  return (
    <div class="chat">
      <header class="chat-header">
        <h1>{look?.title ?? 'Chat'}</h1>
        {session && refusal === null ? (
          <button type="button" class="new" aria-label="New conversation" title="New conversation" onClick={() => void startNewConversation()}>
            +
          </button>
        ) : null}
        <button type="button" class="close" aria-label="Close chat" ref={closeRef} onClick={() => toHost({ parley: 1, type: 'close' })}>
          ×
        </button>
      </header>
      {refusal !== null ? (
        <p class="refusal" role="alert">
          {refusal}
        </p>
      ) : (
        <>
          {conversations.length > 1 ? (
            <select
              class="conversations"
              aria-label="Conversation"
              value={conversationId ?? ''}
              onChange={(event) => setConversationId((event.target as HTMLSelectElement).value)}
            >
              {conversations.map((conversation, index) => (
                <option key={conversation.id} value={conversation.id}>
                  {`#${index + 1} · ${new Date(conversation.lastMessageAt ?? conversation.createdAt).toLocaleString()}${
                    conversation.lastText ? ` · ${conversation.lastText.slice(0, 40)}` : ''
                  }`}
                </option>
              ))}
            </select>
          ) : null}
          {away ? <AwayNote backAt={away.backAt} /> : null}
          <div class="log" role="log" aria-label="Conversation" aria-live="polite" ref={logRef}>
            {look?.greeting ? <p class="message from-agent greeting">{look.greeting}</p> : null}
            {messages.map((message, index) => (
              <div key={message.id} class={`message from-${message.from}`} data-message-id={message.id}>
                {message.from !== 'visitor' && (index === 0 || authorOf(messages[index - 1] as WidgetMessage) !== authorOf(message)) ? (
                  <span class="author">{authorOf(message)}</span>
                ) : null}
                {message.text ? <p>{message.text}</p> : null}
                {message.attachments.map((file) => (
                  <a key={file.url} href={file.url} target="_blank" rel="noopener noreferrer" class="attachment">
                    {file.name} ({formatSize(file.fileSize)})
                  </a>
                ))}
                {message.choices && index === messages.length - 1 ? (
                  <div class="choices">
                    {message.choices.map((label) => (
                      <button key={label} type="button" disabled={sending} onClick={() => void sendRef.current(label, [])}>
                        {label}
                      </button>
                    ))}
                  </div>
                ) : null}
              </div>
            ))}
          </div>
          {typing ? (
            <p class="typing" role="status">
              {`${AGENT_NAME} is typing`}
              <span class="dots" aria-hidden="true" />
            </p>
          ) : null}
          {status === 'reconnecting' ? (
            <p class="status" role="status">
              Reconnecting…
            </p>
          ) : null}
          {error !== null ? (
            <p class="error" role="alert">
              {error}
            </p>
          ) : null}
          {askDetails && rules ? (
            <PreChatForm
              rules={rules}
              initial={details}
              token={() => tokenRef.current}
              firstField={detailsRef}
              onDone={(given) => {
                setDetails(given);
                setDetailsGiven(true);
                setTimeout(() => inputRef.current?.focus(), 0);
              }}
            />
          ) : (
            <form class="composer" onSubmit={submit}>
              <textarea
                aria-label="Message"
                placeholder="Type a message…"
                rows={2}
                ref={inputRef}
                value={draft}
                disabled={!session || !conversationId}
                onInput={(event) => setDraft((event.target as HTMLTextAreaElement).value)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' && !event.shiftKey) void submit(event);
                }}
              />
              <div class="actions">
                <label class="attach">
                  <input
                    type="file"
                    multiple
                    aria-label="Attach files"
                    ref={fileRef}
                    onChange={(event) => setFiles(Array.from((event.target as HTMLInputElement).files ?? []))}
                  />
                  {files.length > 0 ? `${files.length} file${files.length > 1 ? 's' : ''}` : 'Attach'}
                </label>
                <button type="submit" disabled={!session || sending}>
                  Send
                </button>
              </div>
            </form>
          )}
        </>
      )}
    </div>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
