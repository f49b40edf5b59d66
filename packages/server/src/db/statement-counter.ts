// Counts every SQL statement this process sends to its database, for the benchmark's cost per request
// (docs/performance.md). Switched on only by PARLEY_COUNT_STATEMENTS: when it is off nothing is wrapped, so it
// costs nothing. On SIGUSR2 the count is written to the file that variable names.
import { renameSync, writeFileSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';

export interface StatementCounter {
  /** Statements sent since the counter was made (BEGIN, COMMIT and ROLLBACK included). */
  readonly statements: number;
  /** Counts the statements of a PGlite instance, whichever of its entry points sends them. */
  watchPglite(client: PGlite): void;
  /** Counts the statements sent on every connection of the pool, including pool.query's. */
  watchPool(pool: pg.Pool): void;
}

// Frontend messages of the wire protocol that run a statement: an extended-protocol Execute ('E') or a
// simple-protocol Query ('Q', counted once even when it holds several statements; only migrations send those).
// A statement refused before it runs (a syntax error, an unknown table) sends no Execute: uncounted on PGlite.
const EXECUTE = 0x45;
const QUERY = 0x51;

/** Statements run by one buffer of frontend messages (PGlite may be handed several messages in one buffer). */
function statementsIn(message: Uint8Array): number {
  // A startup packet has no type byte (it begins with its length, whose first byte is 0) and runs nothing.
  if (message[0] === 0) return 0;
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  let statements = 0;
  // Each message: a type byte, then its length (itself included) as a 32-bit big-endian integer.
  for (let offset = 0; offset + 5 <= message.length; offset += 1 + view.getUint32(offset + 1)) {
    const type = message[offset];
    if (type === EXECUTE || type === QUERY) statements += 1;
  }
  return statements;
}

export function createStatementCounter(): StatementCounter {
  let statements = 0;
  return {
    get statements() {
      return statements;
    },
    watchPglite(client) {
      // Every protocol entry point of PGlite (query, exec, transaction, execProtocol*, prepared statements sent
      // through execProtocolRaw) ends in execProtocolRawSync, which its own code calls through `this`.
      const send = client.execProtocolRawSync.bind(client);
      client.execProtocolRawSync = (message: Uint8Array) => {
        statements += statementsIn(message);
        return send(message);
      };
    },
    watchPool(pool) {
      // Drizzle's node-postgres driver sends everything through a pooled client's query (pool.query and
      // transactions alike); one call is one statement (a named prepared statement included).
      pool.on('connect', (client) => {
        const connection = client as unknown as { query: (...args: unknown[]) => unknown };
        const query = connection.query.bind(client);
        connection.query = (...args) => {
          statements += 1;
          return query(...args);
        };
      });
    },
  };
}

/**
 * Writes `{"statements": N, "reports": K}` to `file` on every SIGUSR2 (K counts the reports, so a reader can tell
 * a new one from the last). Written to a temporary file and renamed, so a reader never sees half of it.
 */
export function reportStatementsOnSignal(counter: StatementCounter, file: string): () => void {
  let reports = 0;
  const report = () => {
    reports += 1;
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify({ statements: counter.statements, reports })}\n`);
      renameSync(temporary, file);
    } catch (error) {
      // A wrong path must not take the server down: say so and go on.
      process.emitWarning(`PARLEY_COUNT_STATEMENTS: cannot write ${file}: ${(error as Error).message}`);
    }
  };
  process.on('SIGUSR2', report);
  return () => void process.off('SIGUSR2', report);
}
