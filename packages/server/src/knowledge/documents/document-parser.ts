// Parses documents in worker threads, bounded in time and memory (a crafted file may loop or swell): a parse past
// its time, a worker past its heap, or the process grown more than `maxMemoryMb` since the parse began (heap and
// buffers alike: PDF.js and zlib hold their data outside the heap a worker's resourceLimits bound, so the process's
// resident memory is watched too) ends the worker, and that document fails with a sentence saying so. The readers
// cap what a file may inflate to before that (docx-text.ts, pdf-limits.ts); this holds whatever they miss. Up to
// `concurrency` workers parse at once, one file each; the others wait their turn. The memory and the number of
// workers are sized from the machine's memory (parserBudget). A worker is kept for the next file (loading the
// parsers takes about a second) until it has been idle for `idleMs`; one whose file passed a reader's limit (or
// crashed) is ended at once, so what a hostile file made it hold goes back to the system.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { DocumentKind } from '@parley/contracts';
import type { Passage } from './passages.ts';

export interface DocumentParserOptions {
  /** Wall time of one parse, a new worker's start included (default 60 s). */
  timeoutMs?: number;
  /**
   * What parsing may add to the process's resident memory, all workers together, in MB (default from the machine,
   * parserBudget); each worker's heap (V8 old generation) is capped at three quarters of its share,
   * `maxMemoryMb / concurrency`.
   */
  maxMemoryMb?: number;
  /** Parses at once (default from the machine, parserBudget: at most 2, so the machine's other work keeps its cores). */
  concurrency?: number;
  /** An idle worker is ended after this long (default 10 s). */
  idleMs?: number;
}

const MB = 1024 * 1024;

/** The memory the process may use: the machine's, or its container's limit when that is lower. */
function machineMemory(): number {
  const total = os.totalmem();
  // Unlimited is reported as a huge number (or 0, or nothing).
  const constrained = process.constrainedMemory?.() ?? 0;
  return constrained > 0 && constrained < total ? constrained : total;
}

/**
 * The parser's bounds on a machine of `memoryBytes`: parsing may add an eighth of it to the process, at least 128
 * MB and at most 512 (128 MB on 1 GB, 256 on 2 GB, 512 from 4 GB); one worker below 2 GB, two from there.
 */
export function parserBudget(memoryBytes = machineMemory()): { maxMemoryMb: number; concurrency: number } {
  const mb = memoryBytes / MB;
  return { maxMemoryMb: Math.min(512, Math.max(128, Math.floor(mb / 8))), concurrency: mb < 2048 ? 1 : 2 };
}

/** How long an idle worker is kept: a batch of uploads reuses it, and what it holds goes back soon after. */
export const PARSER_IDLE_MS = 10_000;

/** The passages, or the sentence saying why the document cannot be used. */
export type ParseResult = { passages: Passage[] } | { error: string };

type WorkerReply =
  | { ready: true }
  | { id: number; loaded: true }
  | { id: number; passages: Passage[] }
  | { id: number; error: string; retire?: true }
  | { id: number; crash: string };

interface PoolWorker {
  thread: Worker;
  /** The parse it runs, ended by its reply, its timer or the thread's end. */
  current?: { id: number; kind: DocumentKind; finish: (result: ParseResult) => void };
  idle?: NodeJS.Timeout;
  /** Its parsers are loaded (it said so). */
  ready: boolean;
  /** PDF.js is loaded in it (it loads on the worker's first PDF). */
  pdfLoaded?: boolean;
  /** The process's resident memory when its parse began, once loaded: what the parse's growth is measured from. */
  baseline?: number;
  /**
   * The process's resident memory when it began loading (its parsers when started, PDF.js at its first PDF): what
   * the process grows by meanwhile is the loading's, not counted against the other parses running.
   */
  loadingFrom?: number;
  /** Its last file passed a reader's limit, or it crashed: it is not kept. */
  spent?: boolean;
}

/** How often the process's memory is read while a parse runs. */
const MEMORY_WATCH_MS = 50;

export function createDocumentParser(options: DocumentParserOptions = {}) {
  const budget = parserBudget();
  const { timeoutMs = 60_000, maxMemoryMb = budget.maxMemoryMb, concurrency = budget.concurrency, idleMs = PARSER_IDLE_MS } = options;
  const idleWorkers: PoolWorker[] = [];
  const all = new Set<PoolWorker>();
  const waiting: (() => void)[] = [];
  let running = 0;
  let nextId = 0;
  const limitText = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
  const memoryError = `Reading the file needed more than ${maxMemoryMb} MB of memory, the limit; it may be damaged or too complex.`;
  const limitBytes = maxMemoryMb * MB;
  // Three quarters of a worker's share: the rest is for what lies outside its old generation (the young
  // generation, code, buffers), so a worker stopped at its heap cap has stayed within its share.
  const heapMb = Math.max(1, Math.floor((maxMemoryMb / concurrency) * 0.75));
  // Threads share the process: a parse is ended when the process grew past the limit since it began (so two
  // running at once may both be), the loading of its worker or of another not counted (loadingEnded).
  const watchdog = watchMemory((rss) => {
    for (const worker of all) {
      if (!worker.current || worker.baseline === undefined) continue;
      // Another worker loading grows the process too: this parse is judged again once that has loaded.
      if ([...all].some((other) => other !== worker && other.loadingFrom !== undefined)) continue;
      if (rss - worker.baseline > limitBytes) endWith(worker, { error: memoryError });
    }
  });

  /**
   * A worker's loading ended: the process's growth since it began is taken off the other parses' measure (their
   * baselines move up by it), so one worker loading PDF.js (hundreds of MB when run from the sources, where two
   * loading at once were seen to end each other's parses) never ends another's parse. Meanwhile the others are not
   * judged; their heap caps still hold them.
   */
  function loadingEnded(worker: PoolWorker): void {
    if (worker.loadingFrom === undefined) return;
    const grown = process.memoryUsage.rss() - worker.loadingFrom;
    worker.loadingFrom = undefined;
    if (grown <= 0) return;
    for (const other of all) if (other !== worker && other.baseline !== undefined) other.baseline += grown;
  }

  /** A loaded worker starts on its file: measured from now, unless PDF.js has yet to load for it. */
  function startMeasuring(worker: PoolWorker): void {
    if (worker.current?.kind === 'pdf' && !worker.pdfLoaded) worker.loadingFrom = process.memoryUsage.rss();
    else worker.baseline = process.memoryUsage.rss();
  }

  function spawn(): PoolWorker {
    const worker: PoolWorker = {
      ready: false,
      loadingFrom: process.memoryUsage.rss(),
      thread: new Worker(new URL('./parser-worker.mjs', import.meta.url), {
        resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      }),
    };
    const end = (result: ParseResult) => endWith(worker, result);
    worker.thread.on('message', (reply: WorkerReply) => {
      if ('ready' in reply) {
        worker.ready = true;
        loadingEnded(worker);
        if (worker.current) startMeasuring(worker);
        return;
      }
      if (reply.id !== worker.current?.id) return;
      if ('loaded' in reply) {
        worker.pdfLoaded = true;
        loadingEnded(worker);
        worker.baseline = process.memoryUsage.rss();
        return;
      }
      if ('crash' in reply || ('retire' in reply && reply.retire)) worker.spent = true;
      if ('crash' in reply) worker.current.finish({ error: `The file could not be read: the parser failed (${reply.crash}).` });
      else worker.current.finish('passages' in reply ? { passages: reply.passages } : { error: reply.error });
    });
    worker.thread.on('error', (error: Error & { code?: string }) => {
      end({
        error:
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? memoryError
            : `The file could not be read: the parser failed (${error.message.slice(0, 300)}).`,
      });
    });
    worker.thread.on('exit', (code) => end({ error: `The file could not be read: the parser stopped unexpectedly (exit code ${code}).` }));
    all.add(worker);
    return worker;
  }

  /** Ends the worker; its parse, if one runs, ends with `result`. */
  function endWith(worker: PoolWorker, result: ParseResult): void {
    retire(worker);
    worker.current?.finish(result);
  }

  /** Takes a worker out of the pool and ends its thread. */
  function retire(worker: PoolWorker): void {
    all.delete(worker);
    const index = idleWorkers.indexOf(worker);
    if (index >= 0) idleWorkers.splice(index, 1);
    clearTimeout(worker.idle);
    void worker.thread.terminate();
  }

  function release(worker: PoolWorker): void {
    running -= 1;
    if (running === 0) watchdog.stop();
    // A bomb stopped at its limit may have made its worker hold much: it is not kept.
    if (worker.spent) retire(worker);
    if (all.has(worker)) {
      // Idle, the thread neither keeps the process alive nor lives on unused.
      worker.thread.unref();
      worker.idle = setTimeout(() => retire(worker), idleMs);
      worker.idle.unref();
      idleWorkers.push(worker);
    }
    waiting.shift()?.();
  }

  async function parse(bytes: Buffer, kind: DocumentKind): Promise<ParseResult> {
    if (running >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    watchdog.start();
    const worker = idleWorkers.pop() ?? spawn();
    clearTimeout(worker.idle);
    worker.thread.ref();
    // A copy of its own moves to the worker (transferred, not cloned again).
    const copy = new Uint8Array(bytes.byteLength);
    copy.set(bytes);
    const id = nextId++;
    try {
      return await new Promise<ParseResult>((resolve) => {
        const timer = setTimeout(() => {
          retire(worker);
          finish({ error: `Reading the file took longer than ${limitText}, the limit; it may be damaged or too complex.` });
        }, timeoutMs);
        function finish(result: ParseResult): void {
          if (worker.current?.id !== id) return;
          worker.current = undefined;
          worker.baseline = undefined;
          worker.loadingFrom = undefined;
          clearTimeout(timer);
          resolve(result);
        }
        worker.current = { id, kind, finish };
        if (worker.ready) startMeasuring(worker);
        worker.thread.postMessage({ id, bytes: copy.buffer, kind }, [copy.buffer]);
      });
    } finally {
      release(worker);
    }
  }

  return {
    parse,
    /** Ends every worker (the app is closing); parses in flight fail. */
    async close(): Promise<void> {
      watchdog.stop();
      await Promise.all([...all].map((worker) => worker.thread.terminate()));
    },
  };
}

export type DocumentParser = ReturnType<typeof createDocumentParser>;

/** Calls `check` with the process's resident memory every MEMORY_WATCH_MS from `start()` to `stop()`. */
function watchMemory(check: (rss: number) => void) {
  let timer: NodeJS.Timeout | undefined;
  return {
    start(): void {
      if (timer) return;
      timer = setInterval(() => check(process.memoryUsage.rss()), MEMORY_WATCH_MS);
      timer.unref();
    },
    stop(): void {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
