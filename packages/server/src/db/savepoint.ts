// A statement that may fail on a unique constraint (its store catches the violation and says so) run inside a
// larger transaction: in a savepoint, so the failure is rolled back to it and the transaction goes on (PostgreSQL
// aborts the whole transaction otherwise).
import type { Transaction } from './client.ts';

class Refused<T> {
  constructor(readonly value: T) {}
}

/** Runs `work` in a savepoint of `tx`; when `refused(result)`, the savepoint is rolled back and the result returned. */
export async function inSavepoint<T>(tx: Transaction, work: (savepoint: Transaction) => Promise<T>, refused: (result: T) => boolean): Promise<T> {
  try {
    return await tx.transaction(async (savepoint) => {
      const result = await work(savepoint);
      if (refused(result)) throw new Refused(result);
      return result;
    });
  } catch (error) {
    if (error instanceof Refused) return error.value as T;
    throw error;
  }
}
