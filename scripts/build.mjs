// Compiles the server for `npm start` and the operator CLI for `npm run cli`: ES module bundles of src/
// (dependencies stay in node_modules).
// Usage: node scripts/build.mjs [entry.ts …] — default src/server.ts; each entry becomes .build/<its path>.mjs.
//        node scripts/build.mjs --cli — the CLI only (scripts/cli.mjs calls buildCli() itself when its bundle is stale).
// `npm run bench` builds its raw baseline (bench/baseline/server.ts) with this same step, so both sides of a ratio
// run as the same kind of code: a bundle on plain node, no loader (docs/performance.md, item 15).
//
// Why not run TypeScript through tsx in production: tsx's loader runs in its own thread with its own V8 heap, ~35 MB
// of resident memory for the life of the process (docs/performance.md, item 6), and it compiles every file on each
// start (2 s for `cli -- --help`). esbuild only strips types; the type check is `npm run typecheck`. Every output
// sits two directories below the repository root (.build/src/, .build/cli/), as src/<dir>/ does, so that paths
// resolved against import.meta.url (e.g. "../../prisma/migrations" in src/db/migrate.ts) point where they do from src/.
//
// Each output file is written next to its place and renamed over it: a process starting from the same checkout while
// this runs (a second instance, a test, another CLI command) reads either the old bundle or the new one, never half
// of one.
import { build } from 'esbuild';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLI_BUNDLE } from './cli-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

const COMMON = { absWorkingDir: root, bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node20', sourcemap: true, logLevel: 'warning', write: false };


async function writeAtomically(file, contents) {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, contents);
  await rename(tmp, file);
}

/** One bundle per entry, at .build/<entry path>.mjs. */
export async function buildEntries(entries) {
  for (const entry of entries) {
    const { outputFiles } = await build({ ...COMMON, entryPoints: [entry], outfile: path.join('.build', entry.replace(/\.ts$/, '.mjs')) });
    for (const file of outputFiles) await writeAtomically(file.path, file.contents);
  }
}

/**
 * The dependencies of the CLI's everyday commands, bundled into its chunks instead of imported from node_modules:
 * on Node 20, without a compile cache, each file of a package is one more resolve, read and compile, and zod alone
 * is ~110 of them (its ES modules). Prisma stays outside (only `seed` loads it), and so does pg, which Prisma's
 * adapter loads too: `seed` hands the adapter a pool made by the CLI's code, and one made by a second copy of pg
 * fails in it. CommonJS code in an ES module bundle needs `require` for Node's built-ins, hence the banner.
 */
const CLI_BUNDLED = new Set(['zod', 'commander', '@commander-js/extra-typings', 'jose', 'ipaddr.js']);
const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
/**
 * zod's translations of its error messages into some forty languages, nearly half of its code (360 kB the CLI would
 * parse on every command): nothing in src/ picks one (the default English messages are imported on their own), so
 * the CLI's `z.locales` is left empty.
 */
const withoutZodLocales = {
  name: 'without-zod-locales',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (args.importer.includes(`${path.sep}zod${path.sep}`) ? { path: 'zod-locales', namespace: 'empty' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

const CLI_DEPENDENCIES = {
  plugins: [withoutZodLocales],
  packages: undefined,
  external: [...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies)].filter((name) => !CLI_BUNDLED.has(name)),
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
};

/**
 * The CLI, split into chunks (.build/cli/): a command loads only what it runs, so `--help` or a usage error never
 * loads Prisma or pg, which the database commands import lazily (src/cli/database.ts). The chunks (named by their
 * content) are written first and the entry last, then the list of inputs that scripts/cli.mjs compares with the
 * files on disk to decide whether to rebuild.
 */
export async function buildCli() {
  const started = Date.now();
  const { outputFiles, metafile } = await build({
    ...COMMON,
    ...CLI_DEPENDENCIES,
    entryPoints: { index: 'src/cli/index.ts' },
    outdir: CLI_BUNDLE.dir,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    metafile: true,
  });
  const entry = path.join(root, CLI_BUNDLE.entry);
  const ordered = [...outputFiles.filter((f) => !f.path.startsWith(entry)), ...outputFiles.filter((f) => f.path.startsWith(entry))];
  for (const file of ordered) await writeAtomically(file.path, file.contents);
  const inputs = {};
  // Bundled dependencies are not listed one by one: they change only with package-lock.json (nor is the empty
  // stand-in for zod's locales, which is no file).
  const sources = Object.keys(metafile.inputs).filter((f) => !f.includes('node_modules/') && !f.startsWith('empty:'));
  for (const file of [...sources, 'scripts/build.mjs', 'package.json', 'package-lock.json']) {
    const { mtimeMs, size } = await stat(path.join(root, file));
    // Changed while it was being bundled: no list, so the next command builds again.
    if (mtimeMs >= started) return;
    inputs[file] = [mtimeMs, size];
  }
  await writeAtomically(path.join(root, CLI_BUNDLE.inputs), JSON.stringify(inputs));
  await removeOldChunks(new Set(outputFiles.map((f) => path.basename(f.path))));
}

/** Chunks of earlier builds, once no command started before this build can still be loading them. */
async function removeOldChunks(current) {
  const dir = path.join(root, CLI_BUNDLE.dir);
  for (const name of await readdir(dir)) {
    if (!name.startsWith('chunk-') || current.has(name)) continue;
    const file = path.join(dir, name);
    if (Date.now() - (await stat(file)).mtimeMs > 10 * 60_000) await unlink(file).catch(() => {});
  }
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) {
  const args = process.argv.slice(2);
  if (args.includes('--cli')) await buildCli();
  else await buildEntries(args.length > 0 ? args : ['src/server.ts']);
}
