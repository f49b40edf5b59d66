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
        const body = { channelId, origin: host.origin, ...(host.page ? { page: host.page } : {}), ...(kept ? { token: kept } : {}), ...(identity ? { identity } : {}) };
        started = await startWithRetries(() => startSession(body), () => cancelled);
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

/** Waits before each new try of a session the server could not start for a passing reason (1, 2, 4, 8, 15 s). */
const RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 15_000];

/** No connection, or the server busy or restarting (502, 503, 504): not an answer about this visitor. */
const passing = (failure: unknown) => failure instanceof ApiError && (failure.status === 0 || failure.status === 502 || failure.status === 503 || failure.status === 504);

/**
 * Starts the session, trying again after a passing failure (a server under load or restarting answers 503 for a
 * moment: the frame would otherwise stay refused until the page is reloaded). Any other refusal is final at once.
 */
async function startWithRetries(start: () => Promise<WidgetSession>, cancelled: () => boolean): Promise<WidgetSession> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await start();
    } catch (failure) {
      const delay = RETRY_DELAYS_MS[attempt];
      if (!passing(failure) || delay === undefined || cancelled()) throw failure;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** Back at the announced time: the away note goes (timers run at most ~24.8 days ahead). */
export function useAwayUntilBack({ away, setAway }: FrameState): void {
  useEffect(() => {
    if (!away?.backAt) return;
    const timer = setTimeout(() => setAway(null), Math.min(2 ** 31 - 1, Math.max(0, Date.parse(away.backAt) - Date.now())));
    return () => clearTimeout(timer);
  }, [away]);
}
