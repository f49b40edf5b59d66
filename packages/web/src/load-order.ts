// Answers that arrive out of order: a page that reloads as its filters, its search or the open chat change shows
// only the newest load's answer, so a slow answer for what was left behind never replaces the current one.
import { useRef } from 'preact/hooks';

export function useLoadOrder() {
  const last = useRef(0);
  return {
    /** Call when a load starts; the number to give `isNewest` when its answer comes. */
    begin: () => ++last.current,
    isNewest: (load: number) => load === last.current,
  };
}
