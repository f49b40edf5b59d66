// The account's actions, as the Actions page, a channel's `Actions` section and a knowledge entry's `Answer with an
// action` choose from them (every member reads them; secret headers come masked).
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Action, ActionOutcome } from '@parley/contracts';
import { api, errorText } from '../../api.ts';

export function useActions() {
  const [actions, setActions] = useState<Action[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setActions((await api<{ actions: Action[] }>('GET', '/actions/')).actions);
      setError(null);
    } catch (failure) {
      setError(errorText(failure));
    }
  }, []);
  useEffect(() => void reload(), [reload]);
  return { actions, error, reload };
}

/** How a run ended, in words (the Inbox's line and the runs' table). */
export const OUTCOME_LABELS: Record<ActionOutcome, string> = {
  ok: 'Succeeded',
  http_error: 'HTTP error',
  timeout: 'Timed out',
  refused: 'Refused',
  invalid: 'Invalid value',
  declined: 'Declined by the customer',
};
