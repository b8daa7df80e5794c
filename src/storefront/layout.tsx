import type { VNode } from 'preact';
import type { Db } from '../db/client.ts';
import { StoredLayout } from '../domain/layout-sections/layout.ts';
import type { JsonLd } from './json-ld.ts';
import { rendererFor } from './sections/index.ts';
import { newestOf } from './format.ts';
import type { View } from './view.ts';

export type RenderedLayout = { nodes: VNode[]; updatedAt: string | null; jsonLd: JsonLd[] };

/**
 * A page's enabled layout sections in order, each in an element whose id is the section id (for in-page links).
 * null when the layout has nothing to show, so the page falls back to its body. A section whose key has no renderer
 * or whose stored props no longer fit its schema is left out rather than failing the page.
 */
export async function renderLayout(db: Db, stored: unknown, view: View): Promise<RenderedLayout | null> {
  const layout = StoredLayout.safeParse(stored);
  if (!layout.success) return null;
  const enabled = layout.data.sections.filter((s) => s.enabled);
  const prepared = await Promise.all(enabled.map(async (s) => ({ id: s.id, key: s.key, section: await rendererFor(s.key)?.prepare(db, s.props, view) })));
  const shown = prepared.flatMap((p) => (p.section ? [{ ...p, section: p.section }] : []));
  if (shown.length === 0) return null;
  return {
    nodes: shown.map((p) => (
      <div id={`section-${p.id.replace(/\s+/g, '-')}`} class={`section section--${p.key}`}>
        {p.section.node}
      </div>
    )),
    updatedAt: newestOf(shown.map((p) => p.section.updatedAt)),
    jsonLd: shown.flatMap((p) => p.section.jsonLd),
  };
}
