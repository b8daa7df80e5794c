import { defineConfig } from 'prisma/config';

// The CLI is only used for `prisma generate` here. Migrations are applied by src/db/migrate.ts, the service's own
// runner (no native schema engine to download), which records them in `_prisma_migrations` as `prisma migrate
// deploy` would (docs/deploy.md, "Migrations and rolling upgrades").
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/postgres' },
});
