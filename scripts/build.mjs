// Compiles the server for `npm start`: one ES module bundle of src/ (dependencies stay in node_modules).
// Usage: node scripts/build.mjs [entry.ts …] — default src/server.ts; each entry becomes .build/<its path>.mjs.
// `npm run bench` builds its raw baseline (bench/baseline/server.ts) with this same step, so both sides of a ratio
// run as the same kind of code: a bundle on plain node, no loader (docs/performance.md, item 15).
//
// Why not run TypeScript through tsx in production: tsx's loader runs in its own thread with its own V8 heap, ~35 MB
// of resident memory for the life of the process (docs/performance.md, item 6). esbuild only strips types; the
// type check is `npm run typecheck`. The output sits at .build/src/ so that paths resolved against
// import.meta.url (e.g. "../../prisma/migrations" in src/db/migrate.ts) point where they do from src/.
//
// Each output file is written next to its place and renamed over it: a server starting from the same checkout while
// this runs (a second instance, a test) reads either the old bundle or the new one, never half of one.
import { build } from 'esbuild';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entries = process.argv.length > 2 ? process.argv.slice(2) : ['src/server.ts'];

for (const entry of entries) {
  const { outputFiles } = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile: path.join('.build', entry.replace(/\.ts$/, '.mjs')),
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    write: false,
  });
  for (const file of outputFiles) {
    await mkdir(path.dirname(file.path), { recursive: true });
    const tmp = `${file.path}.${process.pid}.tmp`;
    await writeFile(tmp, file.contents);
    await rename(tmp, file.path);
  }
}
