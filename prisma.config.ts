import { defineConfig } from 'prisma/config';

// The CLI is only used for `prisma generate` here; migrations are applied by src/db/migrate.ts (design.md §2).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/postgres' },
});
