// Summarises a V8 .cpuprofile (from `BENCH_CPU_PROF=1 npm run bench`, or `node --cpu-prof`): self time per
// function and per package, so "what dominated" can be read without opening DevTools.
//   npx tsx bench/profile-summary.ts bench/results/profiles/<file>.cpuprofile [top=30]
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

const [file, topArg = '30'] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

// `npm start` runs an esbuild bundle (.build/src/server.mjs): frames in it are mapped back to src/ through its
// source map, so time is attributed to project files as when the TypeScript ran directly.
const sourceMaps = new Map<string, SourceMap | null>();
function sourceMapOf(url: string): SourceMap | null {
  if (!sourceMaps.has(url)) {
    // Only the project's own bundle: packages ship maps too, whose "src/" is theirs.
    const mapFile = url.startsWith('file://') && url.includes('/.build/') ? `${fileURLToPath(url)}.map` : '';
    sourceMaps.set(url, mapFile && existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : null);
  }
  return sourceMaps.get(url)!;
}
for (const { callFrame: f } of profile.nodes) {
  const entry = sourceMapOf(f.url)?.findEntry(f.lineNumber, f.columnNumber);
  if (entry && 'originalSource' in entry) Object.assign(f, { url: entry.originalSource, lineNumber: entry.originalLine });
}

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const self = new Map<number, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  self.set(id, (self.get(id) ?? 0) + dt);
  total += dt;
});

/** node_modules/<pkg> (scoped aware), "src/…" for the project, "node:" for Node internals, else the label. */
function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node:internal';
  const src = /\/(src|bench)\/(.*)$/.exec(url);
  return src ? `${src[1]}/${src[2]}` : url;
}

const fnTime = new Map<string, number>();
const pkgTime = new Map<string, number>();
// Inclusive time per project file / per package: what each costs including what it calls.
const inclusiveSrc = new Map<string, number>();
const inclusivePkg = new Map<string, number>();
for (const [id, t] of self) {
  const node = byId.get(id)!;
  const f = node.callFrame;
  const label = `${f.functionName || '(anonymous)'} ${packageOf(f)}:${f.lineNumber + 1}`;
  fnTime.set(label, (fnTime.get(label) ?? 0) + t);
  const pkg = packageOf(f);
  pkgTime.set(pkg, (pkgTime.get(pkg) ?? 0) + t);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const p = packageOf(byId.get(cur)!.callFrame);
    if (seen.has(p)) continue;
    seen.add(p);
    if (p.startsWith('src/')) inclusiveSrc.set(p, (inclusiveSrc.get(p) ?? 0) + t);
    else inclusivePkg.set(p, (inclusivePkg.get(p) ?? 0) + t);
  }
}

const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)} %`;
const print = (title: string, m: Map<string, number>, n: number) => {
  console.log(`\n${title}`);
  for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`  ${pct(t)}  ${k}`);
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
print('self time by package', pkgTime, 25);
print('inclusive time by package (including what it calls)', inclusivePkg, 20);
print('inclusive time by project file', inclusiveSrc, 20);
print('self time by function', fnTime, top);

// Optional third argument: a function name whose most common call stacks are printed (e.g. writev).
const focus = process.argv[4];
if (focus) {
  const stacks = new Map<string, number>();
  for (const [id, t] of self) {
    if (byId.get(id)!.callFrame.functionName !== focus) continue;
    const frames: string[] = [];
    for (let cur = parent.get(id); cur !== undefined && frames.length < 12; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      frames.push(`${f.functionName || '(anonymous)'}@${packageOf(f)}:${f.lineNumber + 1}`);
    }
    const key = frames.join(' < ');
    stacks.set(key, (stacks.get(key) ?? 0) + t);
  }
  print(`callers of ${focus}`, stacks, 8);
}
