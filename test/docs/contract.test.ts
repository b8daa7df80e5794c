// docs/ is the contract in the repository (docs/contract.md): these checks keep the parts of it that restate the
// code in step with the code, and every pointer into docs/ pointing at a file that exists.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/registry/scopes.ts';
import { TOOLS } from '../../src/tools/index.ts';

const root = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const contract = read('docs/contract.md');

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'generated' || name === 'node_modules' || name === 'results') return [];
    return statSync(join(root, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('docs/contract.md', () => {
  it('has one row per scope, exactly the scopes a key can hold', () => {
    const rows = [...contract.matchAll(/^\| `([a-z]+:[a-z]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual([...SCOPES]);
  });

  it('names exactly the anonymous tools of the registry', () => {
    const sentence = /^- (\w+) tools are anonymous: (.+?) \(public/ms.exec(contract);
    expect(sentence).not.toBeNull();
    const named = [...sentence![2].matchAll(/`([a-z_.]+)`/g)].map((m) => m[1]).sort();
    const anonymous = TOOLS.filter((t) => t.anonymous).map((t) => t.name).sort();
    expect(named).toEqual(anonymous);
    expect(sentence![1]).toBe(['No', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven'][anonymous.length]);
  });
});

describe('docs/robustness.md', () => {
  it('has exactly the rows test/hardening/rows.test.ts names its tests after', () => {
    const documented = [...read('docs/robustness.md').matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    const tested = new Set([...read('test/hardening/rows.test.ts').matchAll(/\bit(?:\.skip|\.todo)?\(['`]row (\d+)\b/g)].map((m) => Number(m[1])));
    expect(documented).toEqual([...tested].sort((a, b) => a - b));
  });
});

describe('pointers into docs/', () => {
  it('every docs/<file>.md named in src, test, scripts, bench, docs and the README exists', () => {
    const docs = new Set(readdirSync(join(root, 'docs')));
    const sources = [...['src', 'test', 'scripts', 'bench', 'docs'].flatMap(filesUnder), 'README.md'];
    const missing: string[] = [];
    for (const file of sources) {
      const text = read(file);
      const inDocs = file.startsWith('docs/');
      for (const m of text.matchAll(/docs\/([a-z0-9-]+\.md)/g)) if (!docs.has(m[1])) missing.push(`${file}: docs/${m[1]}`);
      // Links between docs pages are relative: `[x](errors.md)` or a bare `errors.md`.
      if (inDocs) for (const m of text.matchAll(/\]\(([a-z0-9-]+\.md)(#[a-z0-9-]+)?\)/g)) if (!docs.has(m[1])) missing.push(`${file}: ${m[1]}`);
    }
    expect(missing).toEqual([]);
  });
});
