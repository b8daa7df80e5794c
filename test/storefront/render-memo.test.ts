import { describe, expect, it } from 'vitest';
import type { PageOutcome } from '../../src/storefront/outcome.ts';
import { createRenderMemo } from '../../src/storefront/render-memo.ts';
import { prepare } from '../../src/storefront/respond.ts';

const outcome = (html: string): PageOutcome => ({ kind: 'page', content: prepare(html), language: 'da', lastModified: null });

describe('createRenderMemo', () => {
  it('renders again only when the data text differs, and drops the least recently used page', async () => {
    const memo = createRenderMemo(2);
    let renders = 0;
    const render = (html: string) => () => (renders++, outcome(html));
    const a1 = await memo('/a', '{"v":1}', render('A1'));
    expect(await memo('/a', '{"v":1}', render('never'))).toBe(a1);
    expect(renders).toBe(1);
    const a2 = await memo('/a', '{"v":2}', render('A2'));
    expect(a2).not.toBe(a1);
    expect(renders).toBe(2);
    await memo('/b', '{}', render('B'));
    await memo('/a', '{"v":2}', render('never')); // /a is now the most recently used
    await memo('/c', '{}', render('C')); // evicts /b
    expect(renders).toBe(4);
    await memo('/a', '{"v":2}', render('never'));
    expect(renders).toBe(4);
    await memo('/b', '{}', render('B again'));
    expect(renders).toBe(5);
  });
});
