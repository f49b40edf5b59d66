// Rows of a table read by a fixed SQL text (db/client.ts `preparedQuery`): the select list that names each column
// `<alias>.<field>` and the mapping back to the row type Drizzle would give. The drivers parse each value by its
// type (timestamps to Date, jsonb to objects), as they do for Drizzle.
import { getTableColumns, type Table } from 'drizzle-orm';

export interface RowShape<T> {
  /** `alias.column AS "alias.field", …` */
  select(alias: string): string;
  /** The row of `alias` in a result row. */
  pick(row: Record<string, unknown>, alias: string): T;
}

export function rowShape<T>(table: Table): RowShape<T> {
  const columns = Object.entries(getTableColumns(table));
  return {
    select: (alias) => columns.map(([field, column]) => `${alias}.${column.name} AS "${alias}.${field}"`).join(', '),
    pick: (row, alias) => Object.fromEntries(columns.map(([field]) => [field, row[`${alias}.${field}`]])) as T,
  };
}
