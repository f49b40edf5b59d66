// What every form of the web account does while it talks to the console API: the submit button is disabled while
// the request runs, and its failure becomes the form's error line.
import { useState } from 'preact/hooks';
import { errorText } from './api.ts';

export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Runs `action` with the form busy; a failure is shown, not thrown. */
  const run = async (action: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
