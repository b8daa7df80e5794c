// The shop's address book over UCP REST against PostgreSQL (docs/agentic-checkout.md, reading 15): the flower shop's
// known customers' addresses are seeded; a checkout of a key that also holds customer:read is offered the buyer's
// saved addresses, may select one by id, and saves an address sent without an id (found again by its place);
// a key without customer:read is offered nothing and saves nothing. Every answer is validated against the schemas.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ADDRESS, checkout, lines, ROSES, ucp, useUcp } from './helpers.ts';

const ctx = useUcp();

type Destination = { id: string; street_address?: string; postal_code?: string; address_country?: string; first_name?: string };
type Method = { destinations?: Destination[]; selected_destination_id?: string; groups: Array<{ options: Array<{ id: string }> }> };
const methodOf = (c: { fulfillment: unknown }) => (c.fulfillment as { methods: Method[] }).methods[0];

/** A checkout of the buyer, then an update naming the shipping method with `method`'s fields (no destinations: asks for the book). */
async function checkoutOf(key: string, email: string, method: Record<string, unknown> = {}) {
  const c = checkout(await ucp(ctx.t, ctx.p, 'POST', '/ucp/checkout-sessions', { line_items: lines([[ROSES, 1]]), buyer: { email } }, { key }), 201);
  const body = { line_items: lines([[ROSES, 1]]), fulfillment: { methods: [{ id: 'method_1', type: 'shipping', ...method }] } };
  return { id: c.id, updated: checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${c.id}`, body, { key })) };
}

describe('with customer:read', () => {
  it('offers a known buyer’s saved addresses (seeded from the files) and takes one selected by id', async () => {
    expect(await ctx.t.db.buyerAddress.findMany({ where: { email: 'john.doe@example.com' }, orderBy: { id: 'asc' }, select: { id: true } })).toEqual([{ id: 'addr_1' }, { id: 'addr_2' }]);
    const key = await ctx.t.key(['checkout:agent', 'customer:read']);
    const { id, updated } = await checkoutOf(key, 'John.Doe@Example.com');
    const offered = methodOf(updated);
    expect(offered.destinations?.map((d) => d.id)).toEqual(['addr_1', 'addr_2']);
    expect(offered.destinations?.[0]).toMatchObject({ street_address: '123 Main St', address_country: 'US', first_name: 'John' });
    expect(offered.selected_destination_id).toBeUndefined();

    const body = { line_items: lines([[ROSES, 1]]), fulfillment: { methods: [{ id: 'method_1', type: 'shipping', selected_destination_id: 'addr_2' }] } };
    const chosen = methodOf(checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${id}`, body, { key })));
    expect(chosen.selected_destination_id).toBe('addr_2');
    expect(chosen.destinations).toEqual([expect.objectContaining({ id: 'addr_2', street_address: '456 Oak Ave', postal_code: '10012' })]);
    expect(chosen.groups[0].options.length).toBeGreaterThan(0);
    const row = await ctx.t.db.checkoutSession.findUniqueOrThrow({ where: { id } });
    expect(row.fulfillment).toMatchObject({ destinationId: 'addr_2', address: { streetAddress: '456 Oak Ave', postalCode: '10012', country: 'US' } });
  });

  it('saves an address sent without an id for the buyer, finds it again by its place, and offers it to the next checkout', async () => {
    const key = await ctx.t.key(['checkout:agent', 'customer:read']);
    const email = `new.${randomUUID()}@example.com`;
    const { updated } = await checkoutOf(key, email, { destinations: [{ id: '', ...ADDRESS }] });
    const saved = methodOf(updated).destinations ?? [];
    expect(saved).toHaveLength(1);
    expect(saved[0].id).toMatch(/^addr_/);
    const rows = await ctx.t.db.buyerAddress.findMany({ where: { email } });
    expect(rows.map((r) => r.id)).toEqual([saved[0].id]);
    const audit = await ctx.t.db.auditEntry.findMany({ where: { entityType: 'buyer_address', entityId: saved[0].id } });
    expect(audit.map((a) => a.tool)).toEqual(['update_checkout']);

    // The same place, written otherwise, is the same entry; the next checkout is offered it.
    const again = await checkoutOf(key, email.toUpperCase(), { destinations: [{ ...ADDRESS, street_address: ' 123  MARKET st ' }] });
    expect(methodOf(again.updated).destinations?.map((d) => d.id)).toEqual([saved[0].id]);
    expect(await ctx.t.db.buyerAddress.count({ where: { email } })).toBe(1);
    const next = await checkoutOf(key, email);
    expect(methodOf(next.updated).destinations?.map((d) => d.id)).toEqual([saved[0].id]);
  });

  it('reuses a known buyer’s saved address sent again without an id; an unknown buyer is offered nothing', async () => {
    const key = await ctx.t.key(['checkout:agent', 'customer:read']);
    const place = { street_address: '123 Main St', address_locality: 'Springfield', address_region: 'IL', postal_code: '62704', address_country: 'US' };
    const { updated } = await checkoutOf(key, 'john.doe@example.com', { destinations: [{ id: '', ...place }] });
    expect(methodOf(updated).destinations?.map((d) => d.id)).toEqual(['addr_1']);
    expect(await ctx.t.db.buyerAddress.count({ where: { email: 'john.doe@example.com' } })).toBe(2);
    expect(methodOf((await checkoutOf(key, 'jane.doe@example.com')).updated).destinations).toBeUndefined();
  });
});

describe('without customer:read', () => {
  it('offers no saved address, resolves no saved id and saves nothing', async () => {
    const before = await ctx.t.db.buyerAddress.count();
    const entries = await ctx.t.db.auditEntry.count({ where: { entityType: 'buyer_address' } });
    const { id, updated } = await checkoutOf(ctx.p.key, 'john.doe@example.com');
    expect(methodOf(updated).destinations).toBeUndefined();
    const body = { line_items: lines([[ROSES, 1]]), fulfillment: { methods: [{ id: 'method_1', type: 'shipping', selected_destination_id: 'addr_2' }] } };
    expect(methodOf(checkout(await ucp(ctx.t, ctx.p, 'PUT', `/ucp/checkout-sessions/${id}`, body))).destinations).toBeUndefined();
    const sent = await checkoutOf(ctx.p.key, `other.${randomUUID()}@example.com`, { destinations: [{ id: '', ...ADDRESS }] });
    expect(methodOf(sent.updated).destinations?.map((d) => d.id)).toEqual(['dest_1']);
    expect(await ctx.t.db.buyerAddress.count()).toBe(before);
    expect(await ctx.t.db.auditEntry.count({ where: { entityType: 'buyer_address' } })).toBe(entries);
  });
});
