// Cost per unit of work (a request, a message, a delivery): the server's CPU time and SQL statements between two
// readings, divided by the units done between them. Costs hold still on a noisy machine where rates do not.
import type { Usage } from './processes.ts';

export interface Cost {
  /** CPU time of the process (user + system, all its threads) per unit, in microseconds. */
  cpuUs: number | null;
  /** SQL statements sent per unit (BEGIN and COMMIT included); null for a process that sends none. */
  statements: number | null;
}

export const NO_COST: Cost = { cpuUs: null, statements: null };

export function costPer(before: Usage, after: Usage, units: number): Cost {
  const per = (from: number | undefined, to: number | undefined) =>
    from === undefined || to === undefined || units <= 0 ? null : (to - from) / units;
  return { cpuUs: per(before.cpuUs, after.cpuUs), statements: per(before.statements, after.statements) };
}

/** Runs `work` between two readings of `usage` and returns its cost per unit (`units` is read after the work). */
export async function measureCost<T>(
  usage: () => Promise<Usage>,
  work: () => Promise<T>,
  units: (result: T) => number,
): Promise<{ result: T; cost: Cost }> {
  const before = await usage();
  const result = await work();
  const after = await usage();
  return { result, cost: costPer(before, after, units(result)) };
}
