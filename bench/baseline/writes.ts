// The raw baseline's writes: products.update and checkout.create_order as a careful engineer would hand-write them
// on `pg` — each one transaction with its audit entries (and, for a checkout with an Idempotency-Key, the stored
// outcome), the same query shapes as the service, and the same JSON answer (bench/write-cases.ts checks it before
// measuring). No auth, no validation beyond Fastify's JSON schema, no registry: the practical limit of the stack.
// Pricing uses the service's pure rule (src/domain/pricing.ts): the baseline measures the stack, not a second
// implementation of the shop's arithmetic.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { priceOrder } from '../../src/domain/pricing.ts';

const id = () => `b${randomUUID().replaceAll('-', '').slice(0, 24)}`;
const INT8 = { getTypeParser: (oid: number, format?: string) => (oid === 20 ? BigInt : pg.types.getTypeParser(oid, format as 'text')) };

async function inTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

class Refused extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const PRODUCT_JSON = `to_jsonb(p) - 'searchText'`;

type UpdateBody = { slug: string; patch: { priceDkk: number } };
const updateSchema = {
  body: {
    type: 'object', additionalProperties: false, required: ['slug', 'patch'],
    properties: {
      slug: { type: 'string', minLength: 1, maxLength: 200 },
      patch: { type: 'object', additionalProperties: false, required: ['priceDkk'], properties: { priceDkk: { type: 'integer', minimum: 0 } } },
    },
  },
} as const;

type CheckoutBody = { cartId: string; email: string; shippingName: string; shippingAddress: string; shippingZip: string; shippingCity: string };
const text = { type: 'string', minLength: 1, maxLength: 500 } as const;
const checkoutSchema = {
  body: {
    type: 'object', additionalProperties: false, required: ['cartId', 'email', 'shippingName', 'shippingAddress', 'shippingZip', 'shippingCity'],
    properties: { cartId: text, email: text, shippingName: text, shippingAddress: text, shippingZip: text, shippingCity: text },
  },
} as const;

export function registerWrites(app: FastifyInstance, pool: pg.Pool): void {
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof Refused) return reply.code(err.status).send({ ok: false, error: err.message });
    return reply.send(err);
  });

  app.post<{ Body: UpdateBody }>('/api/v1/tools/products.update', { schema: updateSchema }, async (req) => {
    const { slug, patch } = req.body;
    const result = await inTransaction(pool, async (c) => {
      const { rows: [row] } = await c.query<{ id: string; before: unknown; after: unknown }>({
        name: 'update',
        text: `UPDATE "Product" p SET "priceDkk" = $2, "updatedAt" = now()
               FROM (SELECT * FROM "Product" WHERE slug = $1 AND "deletedAt" IS NULL FOR UPDATE) old
               WHERE p.id = old.id
               RETURNING p.id, to_jsonb(old) - 'searchText' AS before, ${PRODUCT_JSON} AS after`,
        values: [slug, patch.priceDkk],
      });
      if (!row) throw new Refused(404, `No product with slug "${slug}".`);
      await c.query({
        name: 'audit1',
        text: `INSERT INTO "AuditEntry" (id, "apiKeyId", tool, "entityType", "entityId", before, after) VALUES ($1, NULL, 'products.update', 'product', $2, $3, $4)`,
        values: [id(), row.id, row.before, row.after],
      });
      return { id: row.id, slug };
    });
    return { ok: true, result };
  });

  app.post<{ Body: CheckoutBody }>('/api/v1/tools/checkout.create_order', { schema: checkoutSchema }, async (req) => {
    const b = req.body;
    const key = req.headers['idempotency-key'];
    const result = await inTransaction(pool, async (c) => {
      const { rows: [cart] } = await c.query({
        name: 'lock',
        // The Idempotency-Key claimed in the same statement as the cart lock.
        text: `SELECT c.*, s.currency, s."shippingFeeDkk", s."freeShippingThresholdDkk", s."vatRateBasisPoints",
                      $2::text IS NULL OR pg_try_advisory_xact_lock(hashtextextended($2, 0)) AS claimed,
                      EXISTS (SELECT FROM "IdempotencyRecord" r WHERE r."apiKeyId" = 'bench-baseline' AND r.key = $2) AS replay
               FROM "Cart" c LEFT JOIN "ShopSettings" s ON s.id = 1 WHERE c.id = $1 FOR UPDATE OF c`,
        values: [b.cartId, typeof key === 'string' ? key : null],
        types: INT8,
      });
      if (!cart || !cart.claimed || cart.replay || cart.status !== 'open') throw new Refused(422, `Cart "${b.cartId}" cannot be checked out.`);
      const { currency: _c, shippingFeeDkk: _f, freeShippingThresholdDkk: _t, vatRateBasisPoints: _v, claimed: _l, replay: _r, ...cartRow } = cart;
      // Stock is taken from each line's variant; the product's totals follow by trigger, as in the service.
      const { rows: taken } = await c.query<{
        productId: string; variantId: string; sku: string | null; optionValues: string[]; optionNames: string[]; quantity: bigint; slug: string;
        name: string; priceDkk: bigint; lines: number;
      }>({
        name: 'take',
        text: `WITH lines AS (SELECT "productId", "variantId", quantity FROM "CartItem" WHERE "cartId" = $1),
                    locked AS (SELECT id FROM "Product" WHERE id IN (SELECT "productId" FROM lines) ORDER BY id FOR NO KEY UPDATE)
               UPDATE "ProductVariant" v SET stock = CASE WHEN v."trackStock" THEN v.stock - l.quantity ELSE v.stock END, "updatedAt" = now()
               FROM lines l JOIN "Product" p ON p.id = l."productId"
               WHERE v.id = l."variantId" AND p.id IN (SELECT id FROM locked) AND p."deletedAt" IS NULL AND v."deletedAt" IS NULL
                 AND (v.stock >= l.quantity OR NOT v."trackStock" OR v."allowBackorder")
               RETURNING p.id AS "productId", v.id AS "variantId", v.sku, v."optionValues", l.quantity, p.slug, p.name, v."priceDkk",
                         (SELECT coalesce(array_agg(o.name ORDER BY o.position), '{}') FROM "ProductOption" o WHERE o."productId" = p.id) AS "optionNames",
                         (SELECT count(*)::int FROM lines) AS lines`,
        values: [b.cartId],
        types: INT8,
      });
      if (taken.length === 0 || taken.length !== taken[0].lines) throw new Refused(422, 'out of stock');
      taken.sort((x, y) => (x.productId < y.productId ? -1 : x.productId > y.productId ? 1 : x.variantId < y.variantId ? -1 : 1));
      const options = (t: (typeof taken)[number]) => Object.fromEntries(t.optionNames.flatMap((n, i) => (t.optionValues[i] === undefined ? [] : [[n, t.optionValues[i]]])));
      const money = priceOrder(
        taken.map((t) => ({ unitPriceDkk: Number(t.priceDkk), quantity: Number(t.quantity) })),
        null,
        { shippingFeeDkk: Number(cart.shippingFeeDkk), freeShippingThresholdDkk: cart.freeShippingThresholdDkk === null ? null : Number(cart.freeShippingThresholdDkk), vatRateBasisPoints: cart.vatRateBasisPoints },
      );
      const orderId = id();
      const instructions = `Order ${orderId} awaits a manual payment of ${Math.trunc(money.totalDkk / 100)}.${String(money.totalDkk % 100).padStart(2, '0')} ${cart.currency}; the shop marks it paid once the money arrives.`;
      const { rows: [order] } = await c.query({
        name: 'order',
        text: `WITH o AS (
                 INSERT INTO "Order" (id, email, status, "shippingName", "shippingAddress", "shippingZip", "shippingCity", "subtotalDkk",
                                      "shippingDkk", "discountDkk", "totalDkk", "vatOere", "isAiGenerated", "aiAgentSource", "updatedAt",
                                      "paymentMethod", currency, channel)
                 VALUES ($1, $2, 'pending_payment', $3, $4, $5, $6, $7, $8, $9, $10, $11, true, 'bench', now(), 'manual', $12, 'agent')
                 RETURNING *),
               i AS (INSERT INTO "OrderItem" (id, "orderId", "productId", "productName", "unitPriceDkk", quantity, "variantId", "variantSku", "variantAttributes")
                     SELECT x.id, $1, x."productId", x.name, x.price, x.quantity, x."variantId", x.sku, x.attributes
                     FROM unnest($13::text[], $14::text[], $15::text[], $16::bigint[], $17::bigint[], $19::text[], $20::text[], $21::jsonb[])
                       AS x(id, "productId", name, price, quantity, "variantId", sku, attributes)
                     RETURNING *),
               c AS (UPDATE "Cart" SET status = 'checked_out', "orderId" = $1, email = $2, "updatedAt" = now() WHERE id = $18 RETURNING *)
               SELECT to_jsonb(o) || jsonb_build_object('items', (SELECT jsonb_agg(to_jsonb(i) ORDER BY i.id) FROM i)) AS "order",
                      (SELECT to_jsonb(c) FROM c) AS cart
               FROM o`,
        values: [
          orderId, b.email, b.shippingName, b.shippingAddress, b.shippingZip, b.shippingCity, money.subtotalDkk, money.shippingDkk,
          money.discountDkk, money.totalDkk, money.vatOere, cart.currency, taken.map(() => id()), taken.map((t) => t.productId),
          taken.map((t) => t.name), taken.map((t) => String(t.priceDkk)), taken.map((t) => String(t.quantity)), b.cartId,
          taken.map((t) => t.variantId), taken.map((t) => t.sku), taken.map((t) => JSON.stringify(options(t))),
        ],
      });
      const answer = {
        orderId,
        status: 'pending_payment',
        currency: cart.currency,
        items: taken.map((t) => ({
          productSlug: t.slug, productName: t.name, variantId: t.variantId, sku: t.sku, options: options(t), quantity: Number(t.quantity), unitPriceDkk: Number(t.priceDkk),
        })),
        discountCode: null,
        ...money,
        payment: { provider: 'manual', instructions },
      };
      await c.query({
        name: 'records',
        text: `WITH a AS (INSERT INTO "AuditEntry" (id, tool, "entityType", "entityId", before, after, meta)
                          VALUES ($1, 'checkout.create_order', 'order', $2, NULL, $3, $4),
                                 ($5, 'checkout.create_order', 'cart', $6, $7, $8, NULL))
               INSERT INTO "IdempotencyRecord" (id, "apiKeyId", key, tool, "requestHash", "statusCode", response, "completedAt")
               SELECT $9, 'bench-baseline', $10, 'checkout.create_order', $11, 200, $12, now() WHERE $10::text IS NOT NULL`,
        values: [
          id(), orderId, order.order, JSON.stringify({ cartId: b.cartId, stockTaken: taken.map((t) => ({ productId: t.productId, variantId: t.variantId, quantity: Number(t.quantity) })) }),
          id(), b.cartId, JSON.stringify({ ...cartRow, items: taken.map((t) => ({ productId: t.productId, quantity: Number(t.quantity) })) }), order.cart,
          id(), typeof key === 'string' ? key : null, b.cartId, JSON.stringify({ ok: true, result: answer }),
        ],
      });
      return answer;
    });
    return { ok: true, result: result };
  });
}
