// SQL of the demo animal catalog. Every statement is scoped by the account: another account's animal does not
// exist here. IDs and category IDs are bigint end to end (values above 2^53 stay exact).
import { and, asc, eq, gt, type SQL } from 'drizzle-orm';
import type { PetStatus } from '@parley/contracts';
import type { Executor } from '../db/client.ts';
import { demoSeeds, pets } from '../db/schema.ts';

export interface PetRow {
  id: bigint;
  name: string;
  categoryId: bigint;
  status: PetStatus | null;
}

export interface NewPetRow {
  name: string;
  categoryId: bigint;
  status: PetStatus | null;
}

const columns = { id: pets.id, name: pets.name, categoryId: pets.categoryId, status: pets.status };

export function createPetsStore(db: Executor) {
  return {
    /** Up to `limit` animals of the account with an id above `after`, by id ascending. */
    async list(accountId: string, page: { limit: number; after?: bigint; status?: PetStatus }): Promise<PetRow[]> {
      const conditions: SQL[] = [eq(pets.accountId, accountId)];
      if (page.after !== undefined) conditions.push(gt(pets.id, page.after));
      if (page.status !== undefined) conditions.push(eq(pets.status, page.status));
      return db
        .select(columns)
        .from(pets)
        .where(and(...conditions))
        .orderBy(asc(pets.id))
        .limit(page.limit);
    },

    async find(accountId: string, id: bigint): Promise<PetRow | undefined> {
      const [row] = await db
        .select(columns)
        .from(pets)
        .where(and(eq(pets.accountId, accountId), eq(pets.id, id)));
      return row;
    },

    /** Inserts the animals in the given order (ids ascending in that order). */
    async insert(accountId: string, rows: readonly NewPetRow[]): Promise<PetRow[]> {
      if (rows.length === 0) return [];
      return db
        .insert(pets)
        .values(rows.map((row) => ({ ...row, accountId })))
        .returning(columns);
    },

    /** Marks the account's catalog as seeded; true only for the one caller that wrote the mark. */
    async markSeeded(accountId: string): Promise<boolean> {
      const inserted = await db
        .insert(demoSeeds)
        .values({ accountId })
        .onConflictDoNothing({ target: demoSeeds.accountId })
        .returning({ accountId: demoSeeds.accountId });
      return inserted.length > 0;
    },
  };
}

export type PetsStore = ReturnType<typeof createPetsStore>;
