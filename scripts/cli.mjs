// `npm run cli -- …`: the operator CLI as an esbuild bundle on plain node (scripts/build.mjs), so a command starts
// in a fraction of a second instead of compiling TypeScript on every run. `npm ci` builds the bundle (postinstall);
// when it is missing, or any file it was built from changed since (size or modification time differ from the list
// written with it), it is rebuilt here first, so the CLI always runs the checkout's current source.
import { readFileSync, statSync } from 'node:fs';
import { CLI_BUNDLE } from './cli-bundle.mjs';

const root = new URL('..', import.meta.url);
const at = (file) => new URL(file, root);

function fresh() {
  try {
    statSync(at(CLI_BUNDLE.entry));
    const inputs = JSON.parse(readFileSync(at(CLI_BUNDLE.inputs), 'utf8'));
    return Object.entries(inputs).every(([file, [mtimeMs, size]]) => {
      const now = statSync(at(file));
      return now.mtimeMs === mtimeMs && now.size === size;
    });
  } catch {
    return false;
  }
}

if (!fresh()) {
  const { buildCli } = await import('./build.mjs');
  await buildCli();
}
await import(at(CLI_BUNDLE.entry).href);
