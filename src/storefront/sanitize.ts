import sanitizeHtml from 'sanitize-html';

// Stored HTML (a page's vibeHtml) is untrusted: an agent or an import wrote it. It passes this allow-list before it
// reaches a page: structure and text only. No script, style, iframe, form or event-handler attribute survives; links
// keep http(s), mailto and tel; images keep https and data: (inline pictures), nothing else. No `style` or `class`
// attribute (CSS can fetch URLs and restyle the page), no `id` (could clash with the page's own anchors).

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'ul', 'ol', 'li', 'dl', 'dt', 'dd',
    'strong', 'em', 'b', 'i', 'u', 's', 'small', 'sub', 'sup', 'mark', 'abbr', 'cite', 'q', 'span', 'div', 'section',
    'article', 'aside', 'header', 'footer', 'figure', 'figcaption', 'a', 'img', 'table', 'thead', 'tbody', 'tfoot',
    'tr', 'th', 'td', 'caption',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height', 'loading'],
    th: ['scope', 'colspan', 'rowspan'],
    td: ['colspan', 'rowspan'],
    abbr: ['title'],
    ol: ['start', 'reversed'],
  },
  allowedSchemes: ['https', 'http', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['https', 'data'] },
  allowProtocolRelative: false,
  // Content of these is dropped with the tag (the default for script/style, stated for the others too).
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'template', 'iframe', 'object', 'title'],
  transformTags: {
    // An author's h1 would compete with the page title; links leaving the shop get no referrer and no opener.
    h1: 'h2',
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'nofollow noopener noreferrer' } }),
  },
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

export function sanitizeStoredHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}
