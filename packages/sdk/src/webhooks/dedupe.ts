// Deduplication of webhook events (spec, Events → Delivery rules 4: events may arrive more than once).

/** Where the receiver remembers what it has handled. Share one store between processes to dedupe across them. */
export interface DedupeStore {
  /** Remembers `key`; true when it is new, false when it was seen before. Must be atomic for concurrent calls. */
  claim(key: string): boolean | Promise<boolean>;
  /** Forgets `key` (the receiver calls it when a callback failed, so a redelivery or a replay is handled again). */
  release?(key: string): void | Promise<void>;
}

/** The default store: this process's memory, the `maxKeys` most recent keys (default 100 000). */
export class MemoryDedupeStore implements DedupeStore {
  readonly #keys = new Set<string>();

  constructor(private readonly maxKeys = 100_000) {}

  claim(key: string): boolean {
    if (this.#keys.has(key)) return false;
    this.#keys.add(key);
    // A Set iterates in insertion order: the first key is the oldest.
    if (this.#keys.size > this.maxKeys) for (const oldest of this.#keys) {
      this.#keys.delete(oldest);
      break;
    }
    return true;
  }

  release(key: string): void {
    this.#keys.delete(key);
  }

  get size(): number {
    return this.#keys.size;
  }
}
