// Group commit: concurrent requests are gathered and written together, one statement per batch, each request
// answered only once its batch has committed. A batch starts on the next turn of the event loop after the first
// request (or as soon as the previous batch is done), so a lone request waits for no timer and a busy process makes
// one statement for many requests. A failing batch is written again one item at a time: a bad item fails alone.

export interface GroupCommitOptions<I, O> {
  /** Writes a batch; returns one result per item, in order. */
  write(batch: readonly I[], itemClass: string): Promise<O[]>;
  /** Items per statement at most. */
  maxBatch: number;
  /**
   * Items with the same key never share a batch, nor go in a batch while one with their key is being written (one
   * statement cannot change a row twice, and an item's batch commits after its predecessor's); they go in later
   * batches in the order they came.
   */
  keyOf(item: I): string;
  /** Batches written at once (1 on PGlite, whose one connection runs one statement at a time). */
  concurrency?: number;
  /** Items of different classes never share a batch (each class has its own statement); the first waiting item's class goes first. */
  classOf?(item: I): string;
}

interface Waiting<I, O> {
  item: I;
  key: string;
  itemClass: string;
  resolve(result: O): void;
  reject(error: unknown): void;
}

export function createGroupCommit<I, O>({ write, maxBatch, keyOf, concurrency = 1, classOf = () => '' }: GroupCommitOptions<I, O>) {
  let waiting: Waiting<I, O>[] = [];
  let running = 0;
  let scheduled = false;
  /** Keys of the items being written. */
  const busy = new Set<string>();

  /**
   * The next batch: the first waiting item of each key not being written, in arrival order, up to maxBatch, all of
   * the class of the first such item.
   */
  function takeBatch(): Waiting<I, O>[] {
    const batch: Waiting<I, O>[] = [];
    const keys = new Set<string>();
    const rest: Waiting<I, O>[] = [];
    for (const entry of waiting) {
      const fits = batch.length === 0 || entry.itemClass === batch[0]?.itemClass;
      if (fits && batch.length < maxBatch && !keys.has(entry.key) && !busy.has(entry.key)) {
        keys.add(entry.key);
        batch.push(entry);
      } else {
        rest.push(entry);
      }
    }
    waiting = rest;
    return batch;
  }

  async function writeOne(entry: Waiting<I, O>): Promise<void> {
    try {
      const [result] = await write([entry.item], entry.itemClass);
      entry.resolve(result as O);
    } catch (error) {
      entry.reject(error);
    }
  }

  async function writeBatch(batch: Waiting<I, O>[]): Promise<void> {
    if (batch.length === 1) return writeOne(batch[0] as Waiting<I, O>);
    let results: O[];
    try {
      results = await write(
        batch.map((entry) => entry.item),
        (batch[0] as Waiting<I, O>).itemClass,
      );
    } catch {
      for (const entry of batch) await writeOne(entry);
      return;
    }
    batch.forEach((entry, index) => entry.resolve(results[index] as O));
  }

  /** Starts batches while there is room and something to write. */
  function pump(): void {
    while (running < concurrency && waiting.length > 0) {
      const batch = takeBatch();
      if (batch.length === 0) return;
      running += 1;
      for (const entry of batch) busy.add(entry.key);
      void writeBatch(batch).finally(() => {
        running -= 1;
        for (const entry of batch) busy.delete(entry.key);
        pump();
      });
    }
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  return {
    /** Resolves with the item's result once its batch has committed; rejects with its own error only. */
    submit(item: I): Promise<O> {
      return new Promise<O>((resolve, reject) => {
        waiting.push({ item, key: keyOf(item), itemClass: classOf(item), resolve, reject });
        // While every slot is busy, the next finished batch starts the following one.
        if (running < concurrency) schedule();
      });
    },
  };
}
