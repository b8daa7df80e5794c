// Prisma's own parse of schema.prisma (the DMMF), so tests compare the database against what Prisma
// understands, not against a hand-written parser.
//
// The `prisma` CLI (devDependency, exact version) bundles the prisma-schema wasm module (`get_dmmf`) with
// its wasm-bindgen glue inside build/cli.js and does not export it. We evaluate just that glue module.
// If a Prisma upgrade changes the bundle so this fails, the error says so; the clean replacement is a
// devDependency on `@prisma/prisma-schema-wasm` pinned to the CLI's engine version (import { get_dmmf }).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type DmmfField = {
  name: string;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  isList: boolean;
  isRequired: boolean;
  isUnique: boolean;
  isId: boolean;
  isUpdatedAt: boolean;
  hasDefaultValue: boolean;
  type: string;
  dbName?: string | null;
  nativeType?: [string, string[]] | null;
  default?: unknown;
  relationName?: string;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
};
export type DmmfModel = { name: string; dbName: string | null; fields: DmmfField[] };
export type DmmfIndex = {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  isDefinedOnField: boolean;
  dbName?: string | null;
  name?: string | null;
  algorithm?: string;
  fields: { name: string; sortOrder?: string; length?: number; operatorClass?: string }[];
};
export type Datamodel = { models: DmmfModel[]; indexes: DmmfIndex[] };

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SCHEMA_PATH = path.join(ROOT, 'prisma', 'schema.prisma');

type SchemaWasm = { get_dmmf: (params: string) => string };
let wasm: SchemaWasm | undefined;

function loadSchemaWasm(): SchemaWasm {
  if (wasm) return wasm;
  const require = createRequire(import.meta.url);
  const buildDir = path.dirname(require.resolve('prisma/build/index.js'));
  const src = readFileSync(path.join(buildDir, 'cli.js'), 'utf8');
  const fail = (why: string) =>
    new Error(`cannot load get_dmmf from prisma/build/cli.js (${why}); see test/helpers/prisma-dmmf.ts`);
  const wasmAt = src.indexOf('prisma_schema_build_bg.wasm');
  if (wasmAt < 0) throw fail('wasm file name not found');
  const placeholder = src.lastIndexOf('.__wbindgen_placeholder__=', wasmAt);
  const open = src.lastIndexOf('=>{"use strict";', placeholder);
  const head = /\(\(([\w$]+),([\w$]+)\)$/.exec(src.slice(Math.max(0, open - 40), open));
  const end = src.indexOf('.__wbindgen_start()', wasmAt);
  if (placeholder < 0 || open < 0 || !head || end < 0) throw fail('glue module not found');
  const body = src.slice(open + '=>{'.length, end + '.__wbindgen_start()'.length);
  const g = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown };
  g.PRISMA_WASM_PANIC_REGISTRY ??= { set_message() {} };
  const mod = { exports: {} as Record<string, unknown> };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  new Function(head[1], head[2], 'require', '__dirname', body)(mod.exports, mod, require, buildDir);
  if (typeof mod.exports.get_dmmf !== 'function') throw fail('get_dmmf missing');
  wasm = mod.exports as unknown as SchemaWasm;
  return wasm;
}

/** The datamodel part of Prisma's DMMF for `schemaText` (default: prisma/schema.prisma). */
export function getDatamodel(schemaText = readFileSync(SCHEMA_PATH, 'utf8')): Datamodel {
  const dmmf = JSON.parse(loadSchemaWasm().get_dmmf(JSON.stringify({ prismaSchema: schemaText }))) as {
    datamodel: Datamodel;
  };
  return dmmf.datamodel;
}
