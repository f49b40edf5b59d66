// The demo animal catalog's rules: per-account animals, seeded on the account's first use, listed by id with
// a cursor (spec area B; the spec leaves paging past `limit` open).
import type { ListPetsQuery, NewPet, Pet } from '@parley/contracts';
import { PETS_LIMIT_DEFAULT } from '@parley/contracts';
import { LruMap } from 'toad-cache';
import type { Database, Executor } from '../db/client.ts';
import { DomainError } from '../errors.ts';
import type { NewPetRow, PetRow, PetsStore } from './pets-store.ts';

/** What a fresh account finds in its catalog: one animal per status and one without a status. */
export const SEED_PETS: readonly NewPetRow[] = [
  { name: 'Rex', categoryId: 1n, status: 'available' },
  { name: 'Whiskers', categoryId: 2n, status: 'available' },
  { name: 'Bubbles', categoryId: 3n, status: 'pending' },
  { name: 'Polly', categoryId: 4n, status: 'sold' },
  { name: 'Nibbles', categoryId: 5n, status: null },
];

export interface PetsServiceDeps {
  db: Database;
  petsStore: (executor: Executor) => PetsStore;
}

export interface PetsPage {
  pets: Pet[];
  /** The cursor of the next page (the last id of this one), when more animals follow. */
  after: bigint | undefined;
  limit: number;
}

export const petNotFound = () => new DomainError(404, 'Pet not found', 'default', 'petNotFound');

function toPet(row: PetRow): Pet {
  return {
    id: row.id,
    name: row.name,
    categoryId: row.categoryId,
    ...(row.status === null ? {} : { status: row.status }),
  };
}

export function createPetsService({ db, petsStore }: PetsServiceDeps) {
  const store = petsStore(db);
  // Accounts known to be seeded in this process: after the first request, no write is attempted again.
  const seeded = new LruMap<true>(10_000);

  /** Seeds the account's catalog once: the mark and the animals commit together, concurrent callers wait on the mark. */
  async function ensureSeeded(accountId: string): Promise<void> {
    if (seeded.get(accountId)) return;
    await db.transaction(async (tx) => {
      const txStore = petsStore(tx);
      if (await txStore.markSeeded(accountId)) await txStore.insert(accountId, SEED_PETS);
    });
    seeded.set(accountId, true);
  }

  return {
    async listPets(accountId: string, query: ListPetsQuery): Promise<PetsPage> {
      await ensureSeeded(accountId);
      const limit = query.limit ?? PETS_LIMIT_DEFAULT;
      // One row past the page tells whether another page follows.
      const rows = await store.list(accountId, {
        limit: limit + 1,
        ...(query.after !== undefined ? { after: query.after } : {}),
        ...(query.status !== undefined ? { status: query.status } : {}),
      });
      const page = rows.slice(0, limit);
      const after = rows.length > limit ? page[page.length - 1]?.id : undefined;
      return { pets: page.map(toPet), after, limit };
    },

    async createPet(accountId: string, body: NewPet): Promise<Pet> {
      await ensureSeeded(accountId);
      const [row] = await store.insert(accountId, [
        { name: body.name, categoryId: body.categoryId, status: body.status ?? null },
      ]);
      if (!row) throw new Error('insert returned no row');
      return toPet(row);
    },

    async getPet(accountId: string, petId: bigint): Promise<Pet> {
      await ensureSeeded(accountId);
      const row = await store.find(accountId, petId);
      if (!row) throw petNotFound();
      return toPet(row);
    },
  };
}

export type PetsService = ReturnType<typeof createPetsService>;
