// When to ask `How did we do?` (DESIGN, Outcomes and reports: not in the same instant as done): the live stream says a
// conversation ended unrated (csatPending); the frame asks once the last message has been on screen csatDelayMs (30 s
// by default) while the chat is open, or at once when the visitor next opens the chat. A visitor who writes again
// meanwhile has moved on: not asked. When the question shows, the log keeps the last message in view above it.
import { useEffect, useRef } from 'preact/hooks';
import { csatDelayMs } from './host.ts';
import type { FrameState } from './use-frame-state.ts';

export function useCsatMoment(frame: FrameState): void {
  const { csat, setCsat, csatPending, setCsatPending, isOpen, messages, logRef } = frame;
  const last = messages.at(-1);
  /** The last message, and since when it has been on screen (the chat open). */
  const shown = useRef<{ id: string; at: number } | null>(null);
  /** The chat was closed after the question became due: its next open asks at once. */
  const closedSince = useRef(false);
  /** The last message when the question became due: a visitor's message after it drops the question. */
  const lastWhenDue = useRef<string | undefined>(undefined);

  useEffect(() => {
    if (!isOpen) shown.current = null;
    else if (last && shown.current?.id !== last.id) shown.current = { id: last.id, at: Date.now() };
  }, [isOpen, last?.id]);

  useEffect(() => {
    closedSince.current = false;
    lastWhenDue.current = last?.id;
  }, [csatPending]);

  useEffect(() => {
    if (csatPending === null || csat === csatPending) return;
    if (last && last.id !== lastWhenDue.current && last.from === 'visitor') {
      setCsatPending(null);
      return;
    }
    if (!isOpen) {
      closedSince.current = true;
      return;
    }
    if (closedSince.current) {
      setCsat(csatPending);
      return;
    }
    const wait = Math.max(0, (shown.current?.at ?? Date.now()) + csatDelayMs - Date.now());
    const timer = setTimeout(() => setCsat(csatPending), wait);
    return () => clearTimeout(timer);
  }, [csatPending, csat, isOpen, last?.id]);

  // The question below the log never hides the last message: the log ends at the question, or at that message's top.
  useEffect(() => {
    const log = logRef.current;
    if (!log || csat === null) return;
    log.scrollTop = log.scrollHeight;
    const messageEls = log.querySelectorAll<HTMLElement>('[data-message-id]');
    const lastEl = messageEls[messageEls.length - 1];
    if (!lastEl) return;
    const top = lastEl.getBoundingClientRect().top - log.getBoundingClientRect().top + log.scrollTop;
    if (top < log.scrollTop) log.scrollTop = Math.max(0, top - 8);
  }, [csat]);
}
