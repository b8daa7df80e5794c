// Prisma's schema engine is not available offline (docs/architecture.md), so this is what proves the hand-written migrations build
// exactly the database schema.prisma describes: Prisma's own parse of the schema (DMMF) against the catalog
// of a migrated database, in both directions (nothing missing, nothing unexpected), plus migrate()'s
// bookkeeping, idempotence and concurrency.
import { cp, mkdtemp, mkdir, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_MIGRATIONS_DIR, migrate, migrationChecksum, readMigrations } from '../../src/db/migrate.ts';
import {
  createEmptyTestDatabase,
  createTestDatabase,
  dropTestDatabase,
  testDatabaseUrl,
  type TestDatabase,
} from '../helpers/database.ts';
import { readFileSync } from 'node:fs';
import { getDatamodel, SCHEMA_PATH, type DmmfField, type DmmfModel } from '../helpers/prisma-dmmf.ts';

/** Hand-written in the init migration on purpose (see its comments); not in schema.prisma. */
const EXTRA_INDEXES = ['Product_featured_createdAt_id_idx', 'Product_categoryId_createdAt_id_live_idx', 'Order_email_lower_createdAt_id_idx', 'WebhookDelivery_due_idx', 'EmailOutbox_due_idx', 'ProductVariant_sku_live_key', 'CheckoutSession_open_expiresAt_idx', 'ShippingRate_serviceLevel_countryCode_key'];
const EXTRA_CHECKS: Record<string, string> = {
  Product_priceDkk_check: 'CHECK (("priceDkk" > 0))',
  Product_stock_check: 'CHECK ((stock >= 0))',
  DiscountCode_usageCount_check: 'CHECK (("usageCount" >= 0))',
  OrderItem_quantity_check: 'CHECK ((quantity > 0))',
  CartItem_quantity_check: 'CHECK ((quantity > 0))',
  ProductVariant_priceDkk_check: 'CHECK (("priceDkk" > 0))',
  ProductVariant_stock_check: 'CHECK (((stock >= 0) OR "allowBackorder"))',
  CartItem_variantId_check: 'CHECK (("variantId" IS NOT NULL))',
  CheckoutSession_protocol_check: "CHECK ((protocol = ANY (ARRAY['ucp'::text, 'acp'::text])))",
  CheckoutSession_status_check:
    "CHECK ((status = ANY (ARRAY['incomplete'::text, 'requires_escalation'::text, 'ready_for_complete'::text, 'complete_in_progress'::text, 'completed'::text, 'canceled'::text])))",
  WebhookEndpoint_format_check: "CHECK ((format = ANY (ARRAY['standard'::text, 'ucp'::text, 'acp'::text])))",
};

type Column = {
  table_name: string;
  column_name: string;
  data_type: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
  column_default: string | null;
  datetime_precision: number | null;
  is_generated: 'ALWAYS' | 'NEVER';
  generation_expression: string | null;
};
type Index = {
  table: string;
  name: string;
  unique: boolean;
  primary: boolean;
  method: string;
  predicate: string | null;
  columns: string[];
  opclasses: string[];
};
type ForeignKey = { name: string; table: string; refTable: string; onDelete: string; onUpdate: string; columns: string[]; refColumns: string[] };

const datamodel = getDatamodel();
const dbNameOf = (m: DmmfModel) => m.dbName ?? m.name;
const columnOf = (f: DmmfField) => f.dbName ?? f.name;
const scalarFields = (m: DmmfModel) => m.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum');
/** An index field's column; fields of Unsupported type are not in the DMMF's field list (their name is the column). */
const indexColumnOf = (m: DmmfModel, name: string) => {
  const field = m.fields.find((f) => f.name === name);
  return field ? columnOf(field) : name;
};

/**
 * Generated columns, which Prisma has no syntax for: declared in schema.prisma as
 * `<name> Unsupported("text")? @default(dbgenerated("<expression as PostgreSQL prints it>"))`, which the DMMF
 * leaves out. Read from the schema text so the declaration and the migration cannot drift apart.
 */
const generatedColumns = (model: DmmfModel) => {
  const block = new RegExp(`^model ${model.name} \\{([\\s\\S]*?)^\\}`, 'm').exec(readFileSync(SCHEMA_PATH, 'utf8'))?.[1] ?? '';
  return [...block.matchAll(/^\s+(\w+)\s+Unsupported\("text"\)\?\s+@default\(dbgenerated\("((?:[^"\\]|\\.)*)"\)\)/gm)].map((m) => ({
    column: m[1]!,
    expression: m[2]!.replace(/\\(.)/g, '$1'),
  }));
};

let tdb: TestDatabase;
let client: pg.Client;
let columns: Column[];
let indexes: Index[];
let fks: ForeignKey[];

beforeAll(async () => {
  tdb = await createTestDatabase();
  client = new pg.Client({ connectionString: tdb.url });
  await client.connect();
  columns = (
    await client.query<Column>(
      `SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default, datetime_precision,
              is_generated, generation_expression
         FROM information_schema.columns WHERE table_schema = current_schema()`,
    )
  ).rows;
  indexes = (
    await client.query<Index>(
      `SELECT t.relname AS table, i.relname AS name, ix.indisunique AS unique, ix.indisprimary AS primary,
              am.amname AS method, pg_get_expr(ix.indpred, ix.indrelid) AS predicate,
              array(SELECT a.attname::text FROM unnest(ix.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
              array(SELECT o.opcname::text FROM unnest(ix.indclass::oid[]) WITH ORDINALITY c(opc, ord)
                      JOIN pg_opclass o ON o.oid = c.opc ORDER BY c.ord) AS opclasses
         FROM pg_index ix
         JOIN pg_class i ON i.oid = ix.indexrelid
         JOIN pg_class t ON t.oid = ix.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         JOIN pg_am am ON am.oid = i.relam
        WHERE n.nspname = current_schema() AND t.relname <> '_prisma_migrations'`,
    )
  ).rows;
  fks = (
    await client.query<ForeignKey>(
      `SELECT c.conname AS name, t.relname AS table, rt.relname AS "refTable",
              c.confdeltype AS "onDelete", c.confupdtype AS "onUpdate",
              array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, ord)
                      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.ord) AS columns,
              array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, ord)
                      JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.ord) AS "refColumns"
         FROM pg_constraint c
         JOIN pg_class t ON t.oid = c.conrelid
         JOIN pg_class rt ON rt.oid = c.confrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE c.contype = 'f' AND n.nspname = current_schema()`,
    )
  ).rows;
});

afterAll(async () => {
  await client?.end();
  await tdb?.drop();
});

describe('the migrated database matches prisma/schema.prisma', () => {
  it('has exactly one table per model, plus _prisma_migrations', async () => {
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    const expected = [...datamodel.models.map(dbNameOf), '_prisma_migrations'].sort();
    expect(rows.map((r) => r.table_name).sort()).toEqual(expected);
  });

  for (const model of datamodel.models) {
    describe(`model ${model.name}`, () => {
      it('has exactly its scalar fields as columns', () => {
        const actual = columns.filter((c) => c.table_name === dbNameOf(model)).map((c) => c.column_name);
        const generated = generatedColumns(model).map((g) => g.column);
        expect(actual.sort()).toEqual([...scalarFields(model).map(columnOf), ...generated].sort());
      });

      for (const { column, expression } of generatedColumns(model)) {
        it(`${column}: text GENERATED ALWAYS AS the expression schema.prisma declares`, () => {
          const col = columns.find((c) => c.table_name === dbNameOf(model) && c.column_name === column);
          expect(col).toMatchObject({ udt_name: 'text', is_nullable: 'YES', is_generated: 'ALWAYS', generation_expression: expression });
        });
      }

      for (const field of scalarFields(model)) {
        it(`${field.name}: ${describeField(field)}`, () => {
          const col = columns.find((c) => c.table_name === dbNameOf(model) && c.column_name === columnOf(field));
          expect(col, `column "${dbNameOf(model)}"."${columnOf(field)}"`).toBeDefined();
          const want = expectedType(field);
          expect({ udt: col!.udt_name, precision: want.precision === undefined ? undefined : col!.datetime_precision })
            .toEqual({ udt: want.udt, precision: want.precision });
          // Prisma creates list columns without NOT NULL; every other required field is NOT NULL.
          if (!field.isList) expect(col!.is_nullable).toBe(field.isRequired ? 'NO' : 'YES');
          expect(col!.column_default).toBe(expectedDefault(field));
        });
      }

      it('has its primary key', () => {
        const idFields = model.fields.filter((f) => f.isId).map(columnOf);
        const pk = indexes.find((i) => i.table === dbNameOf(model) && i.primary);
        expect(pk).toMatchObject({ name: `${dbNameOf(model)}_pkey`, columns: idFields });
      });

      it('has exactly its @unique/@@unique/@@index indexes (Prisma names, columns, method, operator class)', () => {
        const expected = datamodel.indexes
          .filter((ix) => ix.model === model.name && ix.type !== 'id')
          .map((ix) => {
            const cols = ix.fields.map((f) => indexColumnOf(model, f.name));
            const unique = ix.type === 'unique';
            return {
              name: ix.dbName ?? `${dbNameOf(model)}_${cols.join('_')}_${unique ? 'key' : 'idx'}`,
              unique,
              method: (ix.algorithm ?? 'BTree').toLowerCase(),
              columns: cols,
              opclasses: ix.fields.map((f) => f.operatorClass?.toLowerCase() ?? null),
            };
          });
        const actual = indexes
          .filter((i) => i.table === dbNameOf(model) && !i.primary && !EXTRA_INDEXES.includes(i.name))
          .map((i) => ({
            name: i.name,
            unique: i.unique,
            method: i.method,
            columns: i.columns,
            // Only explicit operator classes are declared in the schema; defaults show as null.
            opclasses: i.opclasses.map((o, n) => (expected.find((e) => e.name === i.name)?.opclasses[n] ? o : null)),
          }));
        const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
        expect(actual.sort(byName)).toEqual(expected.sort(byName));
      });

      it('has a foreign key for each relation it owns, with the schema\'s referential actions', () => {
        const expected = model.fields
          .filter((f) => f.kind === 'object' && f.relationFromFields && f.relationFromFields.length > 0)
          .map((f) => {
            const from = f.relationFromFields!.map((n) => columnOf(model.fields.find((mf) => mf.name === n)!));
            const target = datamodel.models.find((m) => m.name === f.type)!;
            const allRequired = f.relationFromFields!.every((n) => model.fields.find((mf) => mf.name === n)!.isRequired);
            return {
              name: `${dbNameOf(model)}_${from.join('_')}_fkey`,
              table: dbNameOf(model),
              refTable: dbNameOf(target),
              columns: from,
              refColumns: f.relationToFields!.map((n) => columnOf(target.fields.find((tf) => tf.name === n)!)),
              // Prisma's defaults: Restrict when the relation is required, SetNull when optional; Cascade on update.
              onDelete: ACTION[f.relationOnDelete ?? (allRequired ? 'Restrict' : 'SetNull')],
              onUpdate: ACTION[f.relationOnUpdate ?? 'Cascade'],
            };
          });
        const actual = fks.filter((fk) => fk.table === dbNameOf(model));
        const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
        expect(actual.sort(byName)).toEqual(expected.sort(byName));
      });
    });
  }
});

describe('hand-written extras of the init migration', () => {
  it('has pg_trgm and exactly the documented CHECK constraints', async () => {
    const ext = await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`);
    expect(ext.rowCount).toBe(1);
    const { rows } = await client.query<{ name: string; def: string }>(
      `SELECT c.conname AS name, pg_get_constraintdef(c.oid) AS def
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
        WHERE c.contype = 'c' AND n.nspname = current_schema()`,
    );
    expect(Object.fromEntries(rows.map((r) => [r.name, r.def]))).toEqual(EXTRA_CHECKS);
  });

  it('rejects a negative stock and a zero quantity', async () => {
    await client.query(`BEGIN`);
    try {
      const insert = `INSERT INTO "Product" (id, slug, name, description, "priceDkk", stock, "updatedAt")
                      VALUES ('p1', 'p1', 'Name', 'Description', 100, $1, now())`;
      await expect(client.query(insert, [-1])).rejects.toMatchObject({ code: '23514', constraint: 'Product_stock_check' });
    } finally {
      await client.query(`ROLLBACK`);
    }
    await client.query(`BEGIN`);
    try {
      await client.query(`INSERT INTO "Cart" (id, "updatedAt") VALUES ('c1', now())`);
      await client.query(`INSERT INTO "Product" (id, slug, name, description, "priceDkk", stock, "updatedAt")
                          VALUES ('p1', 'p1', 'Name', 'Description', 100, 0, now())`);
      await expect(
        client.query(`INSERT INTO "CartItem" (id, "cartId", "productId", quantity) VALUES ('i1', 'c1', 'p1', 0)`),
      ).rejects.toMatchObject({ code: '23514', constraint: 'CartItem_quantity_check' });
    } finally {
      await client.query(`ROLLBACK`);
    }
  });

  it('lists the newest orders of a rare status straight from its index, with no sort', async () => {
    await client.query(`BEGIN`);
    try {
      // 5,000 orders, 10 of them disputed: walking all orders newest first and dropping the others is what the
      // (status, "createdAt", id) index exists to avoid; the id column makes the index order the query's order.
      await client.query(
        `INSERT INTO "Order" (id, email, status, "shippingName", "shippingAddress", "shippingZip", "shippingCity",
                              "subtotalDkk", "shippingDkk", "discountDkk", "totalDkk", "createdAt", "updatedAt")
         SELECT 'o' || i, 'buyer' || i || '@example.com', (CASE WHEN i % 500 = 0 THEN 'disputed' ELSE 'delivered' END)::"OrderStatus",
                'Buyer', 'Street 1', '1000', 'City', 100, 0, 0, 100, now() - (i || ' minutes')::interval, now()
           FROM generate_series(1, 5000) AS i`,
      );
      await client.query(`ANALYZE "Order"`);
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT id FROM "Order" o WHERE o.status = 'disputed' ORDER BY o."createdAt" DESC, o.id DESC LIMIT 20`,
      );
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('Order_status_createdAt_id_idx');
      expect(plan).not.toMatch(/Sort|Seq Scan/);
    } finally {
      await client.query(`ROLLBACK`);
    }
  });

  it('answers a case-insensitive substring search over name, brand and description from one trigram index', async () => {
    await client.query(`BEGIN`);
    try {
      // At 100k products the planner picks this index by itself for rare words; filling 100k rows takes too long
      // for a unit test, so: a few rows, statistics, and no seq or plain index scans, which leaves only indexes
      // that support LIKE '%…%'.
      await client.query(
        `INSERT INTO "Product" (id, slug, name, description, brand, "priceDkk", stock, "updatedAt", "deletedAt")
         SELECT 'p' || i, 'p-' || i, 'Sunglasses ' || md5(i::text), 'A frame described by ' || md5((i * 7)::text),
                CASE WHEN i % 10 > 0 THEN 'Brand ' || (i % 50) END, 10000 + i, i % 20, now(), CASE WHEN i % 100 = 0 THEN now() END
           FROM generate_series(1, 2000) AS i`,
      );
      const { rows: [row] } = await client.query<{ searchText: string }>(`SELECT "searchText" FROM "Product" WHERE id = 'p10'`);
      expect(row!.searchText).toBe(`sunglasses d3d9446802a44259755d38e6d163e820\u001f\u001fa frame described by 7cbbc409ec990f19c78c75bd1e06f215`);
      await client.query(`ANALYZE "Product"`);
      await client.query(`SET LOCAL enable_seqscan = off`);
      await client.query(`SET LOCAL enable_indexscan = off`);
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT id FROM "Product" WHERE "searchText" LIKE lower($1)`, ['%C4CA42%']);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('Product_searchText_trgm_idx');
      expect(plan).not.toContain('Seq Scan');
    } finally {
      await client.query(`ROLLBACK`);
    }
  });
});

describe('migrate()', () => {
  it('recorded every migration in _prisma_migrations the way Prisma does', async () => {
    const local = await readMigrations();
    expect(local.length).toBeGreaterThan(0);
    const { rows } = await client.query(
      `SELECT id, checksum, migration_name, logs, finished_at, rolled_back_at, started_at, applied_steps_count
         FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows).toHaveLength(local.length);
    rows.forEach((row, n) => {
      expect(row).toMatchObject({
        migration_name: local[n].name,
        checksum: local[n].checksum,
        logs: null,
        rolled_back_at: null,
        applied_steps_count: 1,
      });
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
    });
    // The checksum is SHA-256 of the file's bytes, as Prisma computes it.
    expect(local[0].checksum).toBe(migrationChecksum(local[0].sql));
  });

  it('created _prisma_migrations with Prisma\'s DDL', async () => {
    const { rows } = await client.query(
      `SELECT column_name, data_type, character_maximum_length AS len, is_nullable, column_default
         FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(rows.map((r) => [r.column_name, r.data_type, r.len, r.is_nullable, r.column_default])).toEqual([
      ['id', 'character varying', 36, 'NO', null],
      ['checksum', 'character varying', 64, 'NO', null],
      ['finished_at', 'timestamp with time zone', null, 'YES', null],
      ['migration_name', 'character varying', 255, 'NO', null],
      ['logs', 'text', null, 'YES', null],
      ['rolled_back_at', 'timestamp with time zone', null, 'YES', null],
      ['started_at', 'timestamp with time zone', null, 'NO', 'now()'],
      ['applied_steps_count', 'integer', null, 'NO', '0'],
    ]);
    const { rows: keys } = await client.query(
      `SELECT conname FROM pg_constraint WHERE conrelid = '"_prisma_migrations"'::regclass AND contype = 'p'`,
    );
    expect(keys).toEqual([{ conname: '_prisma_migrations_pkey' }]);
  });

  it('is idempotent: a second run applies nothing', async () => {
    expect(await migrate(tdb.url)).toEqual([]);
  });

  it('applies every migration exactly once when two processes migrate a fresh database at once', async () => {
    const name = await createEmptyTestDatabase();
    try {
      const url = testDatabaseUrl(name);
      const [a, b] = await Promise.all([migrate(url), migrate(url)]);
      const local = (await readMigrations()).map((m) => m.name);
      expect([...a, ...b].sort()).toEqual(local);
      expect([a, b].filter((r) => r.length === 0)).toHaveLength(1);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const { rows } = await c.query(`SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name`);
        expect(rows.map((r) => r.migration_name)).toEqual(local);
      } finally {
        await c.end();
      }
    } finally {
      await dropTestDatabase(name);
    }
  });

  describe('with a scratch migrations folder', () => {
    let dir: string;
    let name: string;
    let url: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'agent-api-migrations-'));
      await cp(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
      name = await createEmptyTestDatabase({ template: inject('dbTemplate') });
      url = testDatabaseUrl(name);
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
      if (name) await dropTestDatabase(name);
    });

    it('applies only the new migration on top of applied ones', async () => {
      await mkdir(path.join(dir, '29990101000000_add_scratch'));
      await writeFile(path.join(dir, '29990101000000_add_scratch', 'migration.sql'), 'CREATE TABLE "Scratch" ("id" INTEGER);\n');
      const messages: string[] = [];
      expect(await migrate(url, { migrationsDir: dir, log: (m) => messages.push(m) })).toEqual(['29990101000000_add_scratch']);
      expect(messages.some((m) => m.includes('29990101000000_add_scratch'))).toBe(true);
      expect(await migrate(url, { migrationsDir: dir })).toEqual([]);
    });

    it('rolls a failing migration back completely and records nothing', async () => {
      const folder = path.join(dir, '29990102000000_broken');
      await mkdir(folder);
      await writeFile(path.join(folder, 'migration.sql'), 'CREATE TABLE "Broken" ("id" INTEGER);\nSELECT 1/0;\n');
      await expect(migrate(url, { migrationsDir: dir })).rejects.toThrow(/29990102000000_broken failed and was rolled back/);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        expect((await c.query(`SELECT to_regclass('"Broken"') AS t`)).rows[0].t).toBeNull();
        expect((await c.query(`SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '29990102000000_broken'`)).rowCount).toBe(0);
      } finally {
        await c.end();
      }
      await rm(folder, { recursive: true });
    });

    it('answers an up-to-date database without the migration lock; a pending migration still waits for it', async () => {
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      try {
        await holder.query(`SELECT pg_advisory_lock(72707369)`); // what a migrating process holds
        expect(await migrate(url, { migrationsDir: dir, lockTimeoutMs: 200 })).toEqual([]);
        const folder = path.join(dir, '29990103000000_pending');
        await mkdir(folder);
        await writeFile(path.join(folder, 'migration.sql'), 'CREATE TABLE "Pending" ("id" INTEGER);\n');
        try {
          await expect(migrate(url, { migrationsDir: dir, lockTimeoutMs: 200 })).rejects.toThrow(/waiting for another process to finish migrating/);
        } finally {
          await rm(folder, { recursive: true });
        }
      } finally {
        await holder.end();
      }
    });

    it('refuses to run when an applied migration file was changed', async () => {
      const local = await readMigrations(dir);
      await appendFile(path.join(dir, local[0].name, 'migration.sql'), '\n-- edited after it was applied\n');
      await expect(migrate(url, { migrationsDir: dir })).rejects.toThrow(/was modified after it was applied/);
    });
  });
});

const ACTION: Record<string, string> = { NoAction: 'a', Restrict: 'r', Cascade: 'c', SetNull: 'n', SetDefault: 'd' };

function expectedType(f: DmmfField): { udt: string; precision?: number } {
  const native = f.nativeType?.[0];
  let udt: string;
  let precision: number | undefined;
  if (f.kind === 'enum') return { udt: f.isList ? `_${f.type}` : f.type };
  switch (f.type) {
    case 'String':
      udt = native === 'VarChar' ? 'varchar' : native === 'Uuid' ? 'uuid' : 'text';
      break;
    case 'Int':
      udt = native === 'SmallInt' ? 'int2' : 'int4';
      break;
    case 'BigInt':
      udt = 'int8';
      break;
    case 'Float':
      udt = native === 'Real' ? 'float4' : 'float8';
      break;
    case 'Decimal':
      udt = 'numeric';
      break;
    case 'Boolean':
      udt = 'bool';
      break;
    case 'Json':
      udt = native === 'Json' ? 'json' : 'jsonb';
      break;
    case 'Bytes':
      udt = 'bytea';
      break;
    case 'DateTime':
      udt = native === 'Timestamptz' ? 'timestamptz' : native === 'Date' ? 'date' : 'timestamp';
      precision = udt === 'date' ? undefined : Number(f.nativeType?.[1]?.[0] ?? 3);
      break;
    default:
      throw new Error(`no expected PostgreSQL type for ${f.name}: ${f.type}`);
  }
  return { udt: f.isList ? `_${udt}` : udt, precision: f.isList ? undefined : precision };
}

/** The column default Prisma's DDL produces, as PostgreSQL reports it; null when the client fills it in. */
function expectedDefault(f: DmmfField): string | null {
  const d = f.default;
  if (d === undefined || f.isUpdatedAt) return null;
  if (Array.isArray(d)) {
    if (d.length > 0) throw new Error(`non-empty list default on ${f.name} not handled`);
    return `ARRAY[]::${expectedType(f).udt.slice(1)}[]`;
  }
  if (typeof d === 'object' && d !== null) {
    const fn = (d as { name: string }).name;
    if (fn === 'now') return 'CURRENT_TIMESTAMP';
    if (fn === 'cuid' || fn === 'uuid' || fn === 'nanoid' || fn === 'ulid') return null; // generated by the client
    throw new Error(`default function ${fn}() on ${f.name} not handled`);
  }
  if (f.type === 'String') return `'${String(d).replace(/'/g, "''")}'::text`;
  if (f.kind === 'enum') return `'${String(d)}'::"${f.type}"`;
  return String(d);
}

function describeField(f: DmmfField): string {
  return `${f.type}${f.isList ? '[]' : ''}${f.isRequired || f.isList ? '' : '?'}${f.nativeType ? ` @db.${f.nativeType[0]}` : ''}`;
}
