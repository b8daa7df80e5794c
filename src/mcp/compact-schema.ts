/**
 * Makes a tool's JSON Schema cheaper for a model to read without changing what it accepts or promises:
 * keywords that say nothing are dropped, and (where the client's revision allows `$ref`) subschemas that repeat
 * are written once under `$defs`. Generic over every tool, so no declaration has to care.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** Keywords whose value is a schema, a list of schemas or a map of schemas: where subschemas live. */
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SCHEMA_MAPS = ['properties', '$defs'] as const;
const SCHEMA_VALUES = ['items', 'additionalProperties', 'not'] as const;

/** Output schemas describe what the server sends: constraints there only tell an agent what it cannot change, and
 * nullable fields say so in their type. */
const OUTPUT_ONLY_NOISE = ['required', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'additionalProperties'];

const isSchema = (value: Json | undefined): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Applies `fn` to every direct subschema of `schema`, returning a new schema. */
function mapSubschemas(schema: Schema, fn: (sub: Schema) => Json): Schema {
  const out: Schema = { ...schema };
  for (const key of SCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) out[key] = list.map((s) => (isSchema(s) ? fn(s) : s));
  }
  for (const key of SCHEMA_MAPS) {
    const map = schema[key];
    if (isSchema(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, s]) => [k, isSchema(s) ? fn(s) : s]));
  }
  for (const key of SCHEMA_VALUES) {
    const value = schema[key];
    if (isSchema(value)) out[key] = fn(value);
  }
  return out;
}

/** A default that only restates the empty value of the field's own type. */
function isEmptyDefault(value: Json): boolean {
  return value === '' || value === null || (Array.isArray(value) && value.length === 0) || (isSchema(value) && Object.keys(value).length === 0);
}

/** Keywords after which a `type` says nothing more, or that a nullable type cannot simply be merged into. */
const TYPE_SETTING = ['const', 'enum', 'anyOf', 'oneOf', 'allOf', 'not', '$ref'];

/**
 * `anyOf: [{type: T, …constraints}, {type: "null"}]` (zod's nullable) as `{type: [T, "null"], …constraints}`:
 * the same instances validate, since every constraint keyword of a typed schema applies to its own type only.
 */
function mergeNullable(schema: Schema): Schema {
  const options = schema.anyOf;
  if (!Array.isArray(options) || options.length !== 2) return schema;
  const [value, nullable] = options;
  if (!isSchema(value) || !isSchema(nullable) || JSON.stringify(nullable) !== '{"type":"null"}') return schema;
  if (typeof value.type !== 'string' || TYPE_SETTING.some((k) => k in value) || Object.keys(value).some((k) => k in schema && k !== 'anyOf')) {
    return schema;
  }
  const { anyOf: _merged, ...rest } = schema;
  return { ...rest, ...value, type: [value.type, 'null'] };
}

/** Drops what says nothing: `$schema`, `minLength: 0`, the safe-integer bounds zod writes on every integer, the
 * regex zod writes next to a `format` that already names it, empty defaults, empty object keywords, `type` beside
 * `const`; on output, constraints and `required` (below the root). */
function prune(schema: Schema, io: 'input' | 'output'): Schema {
  const out = mergeNullable(mapSubschemas(schema, (sub) => prune(sub, io)));
  delete out.$schema;
  if ('const' in out) delete out.type;
  if (out.minLength === 0) delete out.minLength;
  if (out.minimum === -SAFE_INTEGER) delete out.minimum;
  if (out.maximum === SAFE_INTEGER) delete out.maximum;
  if (typeof out.format === 'string') delete out.pattern;
  if ('default' in out && isEmptyDefault(out.default)) delete out.default;
  // An empty `properties`, or `additionalProperties: {}` / `items: {}` (anything goes), is what the type says anyway.
  for (const key of ['properties', 'additionalProperties', 'items']) if (isSchema(out[key]) && Object.keys(out[key]).length === 0) delete out[key];
  if (io === 'output') for (const key of OUTPUT_ONLY_NOISE) if (!isSchema(out[key])) delete out[key];
  return out;
}

/** The output root keeps `required`: it is what tells the always-present `ok`/`result` from the dry-run fields. */
function pruneRoot(schema: Schema, io: 'input' | 'output'): Schema {
  const pruned = prune(schema, io);
  return io === 'output' && schema.required !== undefined ? { ...pruned, required: schema.required } : pruned;
}

/** Keywords that describe what is inside a value rather than the value itself. */
const STRUCTURE = ['properties', 'items', 'prefixItems', 'additionalProperties', 'propertyNames', 'required', 'anyOf', 'oneOf', 'allOf'];

/**
 * An output schema down to the fields of `result` (root → result → its fields): what an agent plans with. Deeper
 * structure (an order's items, a cart's lines) is left to the call's own structuredContent, and to the full
 * schema in OpenAPI and in the discovery toolset's schema tool. A cut-off union keeps the union of its types.
 */
function limitDepth(schema: Schema, depth: number): Schema {
  if (depth > 0) return mapSubschemas(schema, (sub) => limitDepth(sub, depth - (isSchema(schema.properties) ? 1 : 0)));
  const out: Schema = { ...schema };
  const alternatives = [schema.anyOf, schema.oneOf].find(Array.isArray);
  if (alternatives && out.type === undefined) {
    const types = [...new Set(alternatives.flatMap((a) => (isSchema(a) ? [a.type ?? []].flat() : [])))];
    if (types.length > 0) out.type = types.length === 1 ? types[0] : types;
  }
  for (const key of STRUCTURE) delete out[key];
  return out;
}

/** Serialising a subschema this long or longer twice costs more than one `$ref` to it. */
const MIN_SHARED_LENGTH = 60;

/**
 * Moves every subschema that occurs more than once into `$defs` and points at it with `$ref` (JSON Schema
 * 2020-12, the dialect MCP tool schemas use from 2025-11-25 on). The largest repeats are extracted first, so a
 * shared section that contains a shared field becomes two definitions, the first referring to the second.
 */
function shareRepeats(root: Schema): Schema {
  // A repeat's own subschemas are counted once, at its first occurrence: once it is shared they occur once.
  const counts = new Map<string, number>();
  const count = (schema: Schema): void => {
    mapSubschemas(schema, (sub) => {
      const text = JSON.stringify(sub);
      const seen = counts.get(text) ?? 0;
      counts.set(text, seen + 1);
      if (seen === 0) count(sub);
      return sub;
    });
  };
  count(root);
  const shared = new Set([...counts].filter(([text, n]) => n > 1 && text.length >= MIN_SHARED_LENGTH).map(([text]) => text));
  if (shared.size === 0) return root;

  const defs: Schema = {};
  const names = new Map<string, string>();
  const refTo = (text: string, sub: Schema, hint: string): Schema => {
    let name = names.get(text);
    if (!name) {
      name = uniqueName(hint, defs);
      names.set(text, name);
      defs[name] = {}; // reserved before recursing, so the name cannot be taken by a nested definition
      defs[name] = replace(sub);
    }
    return { $ref: `#/$defs/${name}` };
  };
  const replace = (schema: Schema): Schema =>
    mapSubschemas(schema, (sub) => {
      const text = JSON.stringify(sub);
      return shared.has(text) ? refTo(text, sub, nameHint(schema, sub)) : replace(sub);
    });
  const body = replace(root);
  return { ...body, $defs: defs };
}

/** A readable definition name: the subschema's title, or the property it first appears under. */
function nameHint(parent: Schema, sub: Schema): string {
  if (typeof sub.title === 'string') return sub.title;
  const properties = parent.properties;
  if (isSchema(properties)) {
    const key = Object.keys(properties).find((k) => properties[k] === sub);
    if (key) return key;
  }
  if (isSchema(parent.items) && parent.items === sub) return 'item';
  return 'def';
}

function uniqueName(hint: string, taken: Schema): string {
  const base = hint.replace(/[^A-Za-z0-9_-]/g, '') || 'def';
  let name = base;
  for (let i = 2; Object.hasOwn(taken, name); i++) name = `${base}${i}`;
  return name;
}

/**
 * A union of closed object variants that repeat the same fields (a layout section's id, enabled and effect) as one
 * object holding those fields once, with the union below it. Each variant stays closed: with JSON Schema 2020-12
 * (the `$ref` revisions) by `unevaluatedProperties: false` on the object, which sees the fields of the matching
 * variant; for older revisions, whose dialect may not know that keyword, each variant keeps
 * `additionalProperties: false` and names the shared fields with an empty schema (the object's own `properties`
 * check them). Either way exactly the same instances validate.
 */
function hoistSharedFields(schema: Schema, style: SchemaStyle): Schema {
  const out = mapSubschemas(schema, (sub) => hoistSharedFields(sub, style));
  const key = (['oneOf', 'anyOf'] as const).find((k) => Array.isArray(out[k]));
  const variants = key ? (out[key] as Json[]) : [];
  const closed = variants.filter(isSchema).filter((v) => v.type === 'object' && v.additionalProperties === false && isSchema(v.properties));
  if (!key || variants.length < 2 || closed.length !== variants.length || Object.keys(out).some((k) => k !== key && k !== 'description')) return out;
  const fieldsOf = (v: Schema) => v.properties as Schema;
  const [first, ...rest] = closed;
  const shared = Object.keys(fieldsOf(first)).filter((field) =>
    rest.every((v) => Object.hasOwn(fieldsOf(v), field) && JSON.stringify(fieldsOf(v)[field]) === JSON.stringify(fieldsOf(first)[field])),
  );
  if (shared.length === 0) return out;
  const requiredOf = (v: Schema) => (Array.isArray(v.required) ? v.required.filter((r): r is string => typeof r === 'string') : []);
  const alwaysRequired = requiredOf(first).filter((field) => rest.every((v) => requiredOf(v).includes(field)));
  const narrowed = closed.map((v) => {
    const { type: _type, additionalProperties: _closed, properties, required: _required, ...restOfVariant } = v;
    const own = Object.fromEntries(
      Object.entries(properties as Schema).flatMap(([field, sub]): [string, Json][] =>
        !shared.includes(field) ? [[field, sub]] : style === 'inline' ? [[field, {}]] : [],
      ),
    );
    const ownRequired = requiredOf(v).filter((field) => !alwaysRequired.includes(field));
    const closing = style === 'inline' ? { additionalProperties: false } : {};
    return { properties: own, ...(ownRequired.length > 0 ? { required: ownRequired } : {}), ...closing, ...restOfVariant };
  });
  return {
    ...(typeof out.description === 'string' ? { description: out.description } : {}),
    type: 'object',
    properties: Object.fromEntries(shared.map((field) => [field, fieldsOf(first)[field]])),
    ...(alwaysRequired.length > 0 ? { required: alwaysRequired } : {}),
    [key]: narrowed,
    ...(style === 'shared' ? { unevaluatedProperties: false } : {}),
  };
}

/** Root, `result`, the fields of `result`. */
const OUTPUT_DEPTH = 2;

/**
 * A result whose field list is longer than this (in JSON characters; about 100 tokens) is listed by its type
 * alone: an entity with forty fields costs hundreds of tokens in every tools/list and tells an agent nothing it
 * needs before the call; the call's structuredContent shows them, and the full schema stays available.
 */
const RESULT_FIELDS_BUDGET = 400;

/** The output schema tools/list shows: down to the fields of `result` when they are few, else to `result`. */
function listedOutput(schema: Schema): Schema {
  const fields = limitDepth(schema, OUTPUT_DEPTH);
  const result = isSchema(fields.properties) ? fields.properties.result : undefined;
  return JSON.stringify(prune(isSchema(result) ? result : {}, 'output')).length > RESULT_FIELDS_BUDGET ? limitDepth(schema, OUTPUT_DEPTH - 1) : fields;
}

export type SchemaStyle = 'shared' | 'inline';

/**
 * The compact form of one tool's input or output JSON Schema. `fieldsOnly` cuts an output schema below the fields
 * of `result`, or at `result` when they are many (tools/list); without it the whole structure stays (the
 * discovery toolset's schema tool).
 */
export function compactSchema(
  schema: Record<string, unknown>,
  io: 'input' | 'output',
  style: SchemaStyle,
  fieldsOnly = io === 'output',
): Record<string, unknown> {
  const pruned = pruneRoot(fieldsOnly ? listedOutput(schema as Schema) : (schema as Schema), io);
  const hoisted = hoistSharedFields(pruned, style);
  return style === 'shared' ? shareRepeats(hoisted) : hoisted;
}
