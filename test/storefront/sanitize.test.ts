import { describe, expect, it } from 'vitest';
import { sanitizeStoredHtml } from '../../src/storefront/sanitize.ts';
import { XSS_ALL } from './xss-corpus.ts';

describe('sanitizeStoredHtml', () => {
  it('keeps structure, text, https links and https/data images', () => {
    const kept = '<h2>Title</h2><p>Some <strong>bold</strong> and <em>em</em> text.</p><ul><li>one</li></ul><img src="https://images.example.com/a.jpg" alt="A frame" /><img src="data:image/png;base64,iVBORw0KGgo=" alt="inline" />';
    const out = sanitizeStoredHtml(`${kept}<a href="https://example.com/x">x</a>`);
    expect(out).toContain('<h2>Title</h2><p>Some <strong>bold</strong> and <em>em</em> text.</p><ul><li>one</li></ul>');
    expect(out).toContain('<img src="https://images.example.com/a.jpg" alt="A frame" />');
    expect(out).toContain('<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline" />');
    expect(out).toContain('<a href="https://example.com/x" rel="nofollow noopener noreferrer">x</a>');
  });

  it('removes script, handlers, script and data URLs in links, styles, frames, forms and base', () => {
    const out = sanitizeStoredHtml(XSS_ALL);
    expect(out).not.toMatch(/<(script|style|iframe|object|embed|form|base|meta|link|svg|math|noscript)\b/i);
    expect(out).not.toMatch(/\son\w+=/i);
    expect(out).not.toMatch(/javascript:|href="data:/i);
    expect(out).not.toMatch(/style=/i);
    expect(out).not.toContain('evil.example');
  });

  it('turns an h1 into an h2 (the page title is the h1)', () => {
    expect(sanitizeStoredHtml('<h1 class="x" id="main">Hi</h1>')).toBe('<h2>Hi</h2>');
  });
});
