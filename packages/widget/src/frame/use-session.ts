// The visitor's session: started (or resumed with the kept token) for the current identity once the host page
// has said who it is, then the visitor's conversations; and the away note until the announced time.
import type { WidgetSession } from '@parley/contracts';
import { useEffect } from 'preact/hooks';
import { ApiError, conversations as listConversations, startSession } from './api.ts';
import { channelId, host, toHost } from './host.ts';
import type { FrameState } from './use-frame-state.ts';

export function useSession(frame: FrameState): void {
  const { identity, generation, stateRef, tokenRef, keepState } = frame;
  const { setStatus, setSession, setRefusal, setDetails, setAway, setConversations, setConversationId, setError } = frame;
  // A session for the current identity (resumed with the kept token), then the visitor's conversations.
  useEffect(() => {
    if (identity === undefined) return;
    let cancelled = false;
    const begin = async () => {
      setStatus('starting');
      let started: WidgetSession;
      try {
        const kept = stateRef.current?.token;
        started = await startSession({ channelId, origin: host.origin, ...(host.page ? { page: host.page } : {}), ...(kept ? { token: kept } : {}), ...(identity ? { identity } : {}) });
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
}

/** Back at the announced time: the away note goes (timers run at most ~24.8 days ahead). */
export function useAwayUntilBack({ away, setAway }: FrameState): void {
  useEffect(() => {
    if (!away?.backAt) return;
    const timer = setTimeout(() => setAway(null), Math.min(2 ** 31 - 1, Math.max(0, Date.parse(away.backAt) - Date.now())));
    return () => clearTimeout(timer);
  }, [away]);
}
