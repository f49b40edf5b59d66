// Timers that wake a worker when work put off for later falls due (a retry's pause), so the pause holds to a few
// milliseconds rather than a poll; all cleared when the worker stops.
export function createWakeTimers(wake: () => void) {
  const timers = new Set<NodeJS.Timeout>();
  return {
    /** Calls `wake` in `ms` (a few ms late, never early). */
    wakeIn(ms: number): void {
      const timer = setTimeout(() => {
        timers.delete(timer);
        wake();
      }, Math.max(0, ms) + 5);
      timer.unref();
      timers.add(timer);
    },
    clear(): void {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
