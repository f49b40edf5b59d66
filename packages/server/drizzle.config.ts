import { defineConfig } from 'drizzle-kit';

// Migrations are generated with `npm run db:generate -w @parley/server` and applied at start.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
});
