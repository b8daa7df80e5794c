import type { VNode } from 'preact';
import type { z } from 'zod';
import type { Db } from '../../db/client.ts';
import type { JsonLd } from '../json-ld.ts';
import type { View } from '../view.ts';

/** A section ready to place on a page: its markup, the newest timestamp of the data it shows, its structured data. */
export type PreparedSection = { node: VNode; updatedAt: string | null; jsonLd: JsonLd[] };

/** The renderer of one layout section key, as the page sees it: stored props in, a prepared section out. */
export type SectionRenderer = {
  key: string;
  /** null when the stored props no longer fit the key's schema (a section saved before the schema changed). */
  prepare(db: Db, storedProps: unknown, view: View): Promise<PreparedSection | null>;
};

/** The part of a section definition (src/domain/layout-sections/<key>.ts) a renderer needs. */
type Schema<P> = { key: string; props: z.ZodType<P> };

type Markup<P, Args extends unknown[]> = {
  render: (props: P, view: View, ...data: Args) => VNode | null;
  jsonLd?: (props: P) => JsonLd | null;
};

/** A section that shows only its own props. */
export function defineSectionRenderer<P>(definition: Schema<P>, impl: Markup<P, []>): SectionRenderer {
  return renderer(definition, async (props, view) => ({ node: impl.render(props, view), updatedAt: null }), impl.jsonLd);
}

/** A section that shows data its props point at (products, categories): `load` fetches it with its newest updatedAt. */
export function defineDataSectionRenderer<P, D>(
  definition: Schema<P>,
  impl: Markup<P, [D]> & { load: (db: Db, props: P) => Promise<{ data: D; updatedAt: string | null }> },
): SectionRenderer {
  return renderer(
    definition,
    async (props, view, db) => {
      const { data, updatedAt } = await impl.load(db, props);
      return { node: impl.render(props, view, data), updatedAt };
    },
    impl.jsonLd,
  );
}

function renderer<P>(
  definition: Schema<P>,
  build: (props: P, view: View, db: Db) => Promise<{ node: VNode | null; updatedAt: string | null }>,
  jsonLd: ((props: P) => JsonLd | null) | undefined,
): SectionRenderer {
  return {
    key: definition.key,
    async prepare(db, storedProps, view) {
      const parsed = definition.props.safeParse(storedProps ?? {});
      if (!parsed.success) return null;
      const { node, updatedAt } = await build(parsed.data, view, db);
      if (!node) return null;
      const ld = jsonLd?.(parsed.data);
      return { node, updatedAt, jsonLd: ld ? [ld] : [] };
    },
  };
}
