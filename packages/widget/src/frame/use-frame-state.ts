// The frame's state, kept in one place: what the page shows, and the refs the listeners (the host's messages, the
// live stream) read whenever they fire. The hooks and components of the frame take what they need from it.
import type { WidgetConversation, WidgetMessage, WidgetSession } from '@parley/contracts';
import { useRef, useState } from 'preact/hooks';
import type { Identity, VisitorState } from '../protocol.ts';
import { toHost, writeOwnState } from './host.ts';
import { merge, type Status } from './messages.ts';
import type { Details } from './pre-chat.tsx';

export function useFrameState() {
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
  /** The ended conversation the frame asks `How did we do?` about, once its moment came (use-csat-moment.ts); null: none. */
  const [csat, setCsat] = useState<string | null>(null);
  /** An ended conversation the live stream said is unrated (its `csat` frame), waiting for the moment to ask. */
  const [csatPending, setCsatPending] = useState<string | null>(null);
  /** The chat is open on the host page (openRef for listeners; this for effects that follow it). */
  const [isOpen, setIsOpen] = useState(false);
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

  return {
    session, setSession, messages, setMessages, status, setStatus, refusal, setRefusal, error, setError,
    draft, setDraft, files, setFiles, sending, setSending, identity, setIdentity, generation, setGeneration,
    conversations, setConversations, conversationId, setConversationId, details, setDetails, detailsGiven,
    setDetailsGiven, away, setAway, typing, setTyping, csat, setCsat, csatPending, setCsatPending, isOpen, setIsOpen,
    messagesRef, tokenRef, stateRef, openRef, unreadRef, logRef, inputRef, detailsRef, closeRef, fileRef, sendRef,
    readyRef, pendingSends,
    add, reckonUnread, focusFirst, keepState,
  };
}

export type FrameState = ReturnType<typeof useFrameState>;
