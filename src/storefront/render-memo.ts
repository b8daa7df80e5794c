import type { PageOutcome } from './outcome.ts';

/**
 * The last rendering of each page, kept with the JSON text of the data it was rendered from. A page whose HTML is a
 * function of its one query's result (and the base URL, part of the key) is rendered again only when that text
 * differs: the database is still read on every request, so a change shows on the next one, but an unchanged page
 * costs no rendering and no hashing. Pages that read more than their one query (layout sections, search) do not use it.
 *
 * Bounded: the least recently used page goes first. 1,000 pages of ~6 KB HTML plus ~3 KB of data text is ~10 MB.
 */
export function createRenderMemo(maxPages = 1_000) {
  const entries = new Map<string, { dataText: string; outcome: PageOutcome }>();
  return async function memoized(key: string, dataText: string, render: () => Promise<PageOutcome> | PageOutcome): Promise<PageOutcome> {
    const hit = entries.get(key);
    if (hit) entries.delete(key);
    if (hit && hit.dataText === dataText) {
      entries.set(key, hit);
      return hit.outcome;
    }
    const outcome = await render();
    entries.set(key, { dataText, outcome });
    if (entries.size > maxPages) entries.delete(entries.keys().next().value!);
    return outcome;
  };
}

export type RenderMemo = ReturnType<typeof createRenderMemo>;
