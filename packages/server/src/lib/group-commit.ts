// Group commit: concurrent requests are gathered and written together, one statement per batch, each request
// answered only once its batch has committed. A batch starts on the next turn of the event loop after the first
// request (or as soon as the previous batch is done), so a lone request waits for no timer and a busy process makes
// one statement for many requests. A failing batch is written again one item at a time: a bad item fails alone.

export interface GroupCommitOptions<I, O> {
  /** Writes a batch; returns one result per item, in order. */
  write(batch: readonly I[]): Promise<O[]>;
  /** Items per statement at most. */
  maxBatch: number;
  /**
   * Items with the same key never share a batch (one statement cannot change a row twice); they go in later
   * batches in the order they came.
   */
  keyOf(item: I): string;
}

interface Waiting<I, O> {
  item: I;
  key: string;
  resolve(result: O): void;
  reject(error: unknown): void;
}

export function createGroupCommit<I, O>({ write, maxBatch, keyOf }: GroupCommitOptions<I, O>) {
  let waiting: Waiting<I, O>[] = [];
  let writing = false;
  let scheduled = false;

  /** The next batch: the first waiting item of each key, in arrival order, up to maxBatch. */
  function takeBatch(): Waiting<I, O>[] {
    const batch: Waiting<I, O>[] = [];
    const keys = new Set<string>();
    const rest: Waiting<I, O>[] = [];
    for (const entry of waiting) {
      if (batch.length < maxBatch && !keys.has(entry.key)) {
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
      const [result] = await write([entry.item]);
      entry.resolve(result as O);
    } catch (error) {
      entry.reject(error);
    }
  }

  async function drain(): Promise<void> {
    writing = true;
    try {
      while (waiting.length > 0) {
        const batch = takeBatch();
        if (batch.length === 1) {
          await writeOne(batch[0] as Waiting<I, O>);
          continue;
        }
        let results: O[];
        try {
          results = await write(batch.map((entry) => entry.item));
        } catch {
          for (const entry of batch) await writeOne(entry);
          continue;
        }
        batch.forEach((entry, index) => entry.resolve(results[index] as O));
      }
    } finally {
      writing = false;
    }
  }

  function schedule(): void {
    if (scheduled || writing) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void drain();
    });
  }

  return {
    /** Resolves with the item's result once its batch has committed; rejects with its own error only. */
    submit(item: I): Promise<O> {
      return new Promise<O>((resolve, reject) => {
        waiting.push({ item, key: keyOf(item), resolve, reject });
        schedule();
      });
    },
  };
}
