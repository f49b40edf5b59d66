// A reload that live updates ask for, run at most once per interval: asked after a quiet interval it runs at once;
// asked again and again (a steady flow of messages) it runs once per interval, never later than one interval after
// the first ask. Unlike a debounce, which each ask pushes back, it cannot starve.

/** The clock and timers a throttle uses (the browser's, or a test's). */
export interface Timers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export const realTimers: Timers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
  now: () => Date.now(),
};

export interface Throttle {
  /** Asks for a run: at once after a quiet interval, else at the interval's end (asks meanwhile join it). */
  request(): void;
  /** Runs now (an action of the member's own), and the interval starts again. */
  runNow(): void;
  /** Forgets a run asked for and not yet started. */
  cancel(): void;
}

export function createThrottle(run: () => void, intervalMs: number, timers: Timers = realTimers): Throttle {
  let lastRun = -Infinity;
  let timer: unknown;
  const fire = () => {
    timer = undefined;
    lastRun = timers.now();
    run();
  };
  return {
    request() {
      if (timer !== undefined) return;
      const wait = lastRun + intervalMs - timers.now();
      if (wait <= 0) fire();
      else timer = timers.setTimeout(fire, wait);
    },
    runNow() {
      if (timer !== undefined) timers.clearTimeout(timer);
      fire();
    },
    cancel() {
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
    },
  };
}
