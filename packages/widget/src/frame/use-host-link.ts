// The frame's side of the postMessage handshake with the loader: `hello` once listening; the host page answers with
// `init` (its identity and the visitor state it keeps), then may identify, open, close, reset or send.
import { useEffect } from 'preact/hooks';
import { isProtocolMessage, isVisitorState, type HostToFrame } from '../protocol.ts';
import { allowedOrigins, helloToHost, host, readOwnState, toHost, writeOwnState } from './host.ts';
import type { FrameState } from './use-frame-state.ts';

/** Attached once, on the first render: the listeners read only refs and setters, which stay the same. */
export function useHostLink(frame: FrameState): void {
  const { stateRef, openRef, readyRef, sendRef, pendingSends, reckonUnread, focusFirst } = frame;
  const { setIdentity, setDetailsGiven, setGeneration, setIsOpen } = frame;
  // The host page answers hello with the identity and the visitor state it has (or none), then may identify later.
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      if (event.source !== window.parent || !isProtocolMessage(event.data)) return;
      if (host.origin === '' ? !allowedOrigins.includes(event.origin) : event.origin !== host.origin) return;
      const message = event.data as HostToFrame;
      if (message.type === 'init') {
        host.origin = event.origin;
        // Longer than the server keeps (2,048 characters): not sent rather than cut.
        host.page = typeof message.page === 'string' && message.page.length <= 2048 ? message.page : '';
        stateRef.current = isVisitorState(message.state) ? message.state : readOwnState();
        setIdentity(message.identity);
      } else if (host.origin === '') return; // nothing before init
      else if (message.type === 'identify') setIdentity(message.identity);
      else if (message.type === 'open') {
        openRef.current = true;
        setIsOpen(true);
        reckonUnread();
        setTimeout(focusFirst, 0);
      } else if (message.type === 'close') {
        openRef.current = false;
        setIsOpen(false);
      }
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
}
