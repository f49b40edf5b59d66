// Parses documents in worker threads, bounded in time and memory (a crafted PDF may loop or swell): a worker past
// its heap limit or a parse past its time is ended, and that document fails with a sentence saying so. Up to
// `concurrency` workers parse at once, one file each; the others wait their turn. A worker is kept for the next
// file (loading the parsers takes seconds) until it has been idle for `idleMs`.
import { Worker } from 'node:worker_threads';
import type { DocumentKind } from '@parley/contracts';
import type { Passage } from './passages.ts';

export interface DocumentParserOptions {
  /** Wall time of one parse, a new worker's start included (default 60 s). */
  timeoutMs?: number;
  /** A worker's heap (V8 old generation) in MB (default 512). */
  maxMemoryMb?: number;
  /** Parses at once (default 2: the machine's other work keeps its cores). */
  concurrency?: number;
  /** An idle worker is ended after this long (default 60 s). */
  idleMs?: number;
}

/** The passages, or the sentence saying why the document cannot be used. */
export type ParseResult = { passages: Passage[] } | { error: string };

type WorkerReply = { ready: true } | { id: number; passages: Passage[] } | { id: number; error: string } | { id: number; crash: string };

interface PoolWorker {
  thread: Worker;
  /** The parse it runs, ended by its reply, its timer or the thread's end. */
  current?: { id: number; finish: (result: ParseResult) => void };
  idle?: NodeJS.Timeout;
}

export function createDocumentParser({ timeoutMs = 60_000, maxMemoryMb = 512, concurrency = 2, idleMs = 60_000 }: DocumentParserOptions = {}) {
  const idleWorkers: PoolWorker[] = [];
  const all = new Set<PoolWorker>();
  const waiting: (() => void)[] = [];
  let running = 0;
  let nextId = 0;
  const limitText = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;

  function spawn(): PoolWorker {
    const worker: PoolWorker = {
      thread: new Worker(new URL('./parser-worker.mjs', import.meta.url), {
        resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
      }),
    };
    const end = (result: ParseResult) => {
      retire(worker);
      worker.current?.finish(result);
    };
    worker.thread.on('message', (reply: WorkerReply) => {
      if ('ready' in reply || reply.id !== worker.current?.id) return;
      if ('crash' in reply) worker.current.finish({ error: `The file could not be read: the parser failed (${reply.crash}).` });
      else worker.current.finish('passages' in reply ? { passages: reply.passages } : { error: reply.error });
    });
    worker.thread.on('error', (error: Error & { code?: string }) => {
      end({
        error:
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `Reading the file needed more than ${maxMemoryMb} MB of memory, the limit; it may be damaged or too complex.`
            : `The file could not be read: the parser failed (${error.message.slice(0, 300)}).`,
      });
    });
    worker.thread.on('exit', (code) => end({ error: `The file could not be read: the parser stopped unexpectedly (exit code ${code}).` }));
    all.add(worker);
    return worker;
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
          clearTimeout(timer);
          resolve(result);
        }
        worker.current = { id, finish };
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
      await Promise.all([...all].map((worker) => worker.thread.terminate()));
    },
  };
}

export type DocumentParser = ReturnType<typeof createDocumentParser>;
