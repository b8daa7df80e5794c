import type { DbClient, Tx } from '../db/client.ts';
import { toJsonValue } from '../db/json-value.ts';
import { plainJson } from '../domain/json-snapshot.ts';
import { reviveSnapshot } from '../domain/revert.ts';
import { AppError } from '../errors.ts';
import type { Page, Prisma, PublishStatus } from '../generated/prisma/client.ts';
import type { ReversibleEntity } from './reversible.ts';

export async function findPage(db: DbClient, slug: string): Promise<Page> {
  const page = await db.page.findUnique({ where: { slug } });
  if (!page) throw new AppError('not_found', `No page with slug "${slug}".`);
  return page;
}

export const listPages = (db: DbClient) =>
  db.page.findMany({ select: { id: true, slug: true, title: true, status: true, updatedAt: true }, orderBy: { slug: 'asc' } });

/** Creates the page (published unless told otherwise) or replaces its title and body, keeping its layout. */
export async function upsertPage(tx: Tx, input: { slug: string; title: string; body: string; status?: PublishStatus }) {
  const { slug, title, body, status } = input;
  const before = await tx.page.findUnique({ where: { slug } });
  const saved = before
    ? await tx.page.update({ where: { id: before.id }, data: { title, body, ...(status ? { status } : {}) } })
    : await tx.page.create({ data: { slug, title, body, status: status ?? 'published' } });
  return { before, saved };
}

export async function deletePage(tx: Tx, slug: string): Promise<Page> {
  const page = await findPage(tx, slug);
  await tx.page.delete({ where: { id: page.id } });
  return page;
}

/** Replaces the layout (null: the page renders from its body). The layout has already been checked. */
export async function setPageLayout(tx: Tx, slug: string, layout: unknown) {
  const before = await findPage(tx, slug);
  const after = await tx.page.update({ where: { id: before.id }, data: { layout: toJsonValue(layout) } });
  return { before, after };
}

export const pageSnapshot = (row: Page) => plainJson(row);

export const pageEntity: ReversibleEntity = {
  entityType: 'page',
  async load(db, id) {
    const row = await db.page.findUnique({ where: { id } });
    return row ? pageSnapshot(row) : null;
  },
  async restore(tx, id, before) {
    if (before === null) {
      await tx.page.deleteMany({ where: { id } });
      return;
    }
    const data = reviveSnapshot(before, { date: ['createdAt'], omit: ['id', 'updatedAt'] }) as Omit<Prisma.PageUncheckedCreateInput, 'layout'>;
    // A deleted page's slug may have been reused since; re-creating it would then collide.
    const holder = await tx.page.findFirst({ where: { slug: data.slug, NOT: { id } }, select: { id: true } });
    if (holder) throw new AppError('conflict', `Another page now uses the slug "${data.slug}"; delete or rename it first.`);
    const row = { ...data, layout: toJsonValue(before.layout) };
    await tx.page.upsert({ where: { id }, update: row, create: { ...row, id } });
  },
};
