import type { DbClient, Tx } from '../db/client.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { reviveSnapshot } from '../domain/revert.ts';
import { firstFreeSlug, slugify } from '../domain/slug.ts';
import { AppError } from '../errors.ts';
import type { Prisma, PublishStatus, ServiceOffering } from '../generated/prisma/client.ts';
import type { ReversibleEntity } from './reversible.ts';

/** Listing order of /services: navOrder, then oldest first, so equal navOrders keep a stable order. */
export const SERVICE_ORDER: Prisma.ServiceOfferingOrderByWithRelationInput[] = [{ navOrder: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }];

export const listServices = (db: DbClient, status: PublishStatus | undefined) =>
  db.serviceOffering.findMany({ where: status ? { status } : {}, orderBy: SERVICE_ORDER });

/** A slug derived from the title that no service uses yet. */
async function deriveSlug(db: DbClient, title: string): Promise<string> {
  const base = slugify(title, { fallback: 'service' });
  // The base holds only [a-z0-9-], so startsWith cannot be widened by LIKE wildcards.
  const rows = await db.serviceOffering.findMany({ where: { slug: { startsWith: base } }, select: { slug: true } });
  return firstFreeSlug(base, new Set(rows.map((r) => r.slug)));
}

export type NewService = Omit<Prisma.ServiceOfferingUncheckedCreateInput, 'id' | 'slug' | 'navOrder'> & { slug?: string; navOrder: number };

export async function createService(tx: Tx, input: NewService): Promise<ServiceOffering> {
  const { slug: given, navOrder, ...rest } = input;
  if (given !== undefined && (await tx.serviceOffering.findUnique({ where: { slug: given }, select: { id: true } }))) {
    throw new AppError('conflict', `The slug "${given}" is already taken by another service.`);
  }
  const slug = given ?? (await deriveSlug(tx, rest.title));
  return tx.serviceOffering.create({ data: { ...rest, slug, navOrder: BigInt(navOrder) } });
}

export type ServiceChange = Omit<Prisma.ServiceOfferingUncheckedUpdateInput, 'navOrder'> & { navOrder?: number };

export async function updateService(tx: Tx, slug: string, change: ServiceChange) {
  const { navOrder, ...rest } = change;
  const before = await tx.serviceOffering.findUnique({ where: { slug } });
  if (!before) throw new AppError('not_found', `No service with slug "${slug}".`);
  const after = await tx.serviceOffering.update({
    where: { id: before.id },
    data: { ...rest, ...(navOrder !== undefined ? { navOrder: BigInt(navOrder) } : {}) },
  });
  return { before, after };
}

export const serviceSnapshot = (row: ServiceOffering) => plainJson(row);

export const serviceEntity: ReversibleEntity = {
  entityType: 'service',
  async load(db, id) {
    const row = await db.serviceOffering.findUnique({ where: { id } });
    return row ? serviceSnapshot(row) : null;
  },
  async restore(tx, id, before) {
    if (before === null) {
      await tx.serviceOffering.deleteMany({ where: { id } });
      return;
    }
    const data = reviveSnapshot(before, { bigint: ['navOrder'], date: ['createdAt'], omit: ['id', 'updatedAt'] });
    await tx.serviceOffering.update({ where: { id }, data: data as Prisma.ServiceOfferingUncheckedUpdateInput });
  },
};
