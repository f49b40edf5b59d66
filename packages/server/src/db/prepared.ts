// Fixed SQL texts of hot read paths, sent without Drizzle's query building: on PostgreSQL as named prepared
// statements (each pooled connection parses the text once), on PGlite prepared once per session (client.ts
// `preparedQuery`); a text without a name is sent unnamed.
import { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import { preparedQuery, type Database, type Executor } from './client.ts';

/** One statement: `name` unique per `text` (PostgreSQL keeps the statement under that name per connection). */
export interface PreparedQuery {
  name: string;
  text: string;
  values: unknown[];
}

/**
 * The rows of a fixed-text query: on the database itself through `preparedQuery` (named on node-postgres, prepared
 * once per session on PGlite); a text without a name is sent unnamed; in a transaction its $n are bound through Drizzle.
 */
export async function preparedRows<T>(db: Executor, query: PreparedQuery): Promise<T[]> {
  const client: unknown = '$client' in db ? db.$client : undefined;
  if (query.name !== '' && (client instanceof pg.Pool || client instanceof PGlite)) {
    return preparedQuery(db as Database)<T>({ name: query.name, text: query.text }, query.values);
  }
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    return (await client.query({ text: query.text, values: query.values })).rows as T[];
  }
  if (client instanceof PGlite) return (await client.query<T>(query.text, query.values)).rows;
  const result = (await db.execute(withParams(query))) as unknown as { rows: T[] };
  return result.rows;
}

function withParams({ text, values }: PreparedQuery): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql.param(values[Number(part) - 1]))));
}
