import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fresh from 'fresh';

// How every storefront response is sent: validators (strong ETag, Last-Modified), revalidation (304), caching and
// the security headers. Pages run no script, so the policy allows none; styles come only from our stylesheet.

export const STOREFRONT_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export const SECURITY_HEADERS = {
  'Content-Security-Policy': STOREFRONT_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  // For browsers that predate frame-ancestors.
  'X-Frame-Options': 'DENY',
} as const;

/** Shared caches may serve a page for a minute and then, while refetching it, up to five more. */
export const PAGE_CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300';
/** A page with the shopper's form token: only their browser keeps it, and checks it is current before reuse. */
export const PRIVATE_PAGE_CACHE_CONTROL = 'private, no-cache';
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export const HTML_TYPE = 'text/html; charset=utf-8';

/** A response body with its strong validator: the hash of the exact bytes, so equal tags mean identical bodies. */
export type Prepared = { bytes: Buffer; etag: string };

export function prepare(body: string | Buffer): Prepared {
  const bytes = Buffer.from(body);
  return { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"` };
}

export type CachedBody = {
  content: Prepared;
  contentType: string;
  cacheControl: string;
  /** ISO timestamp of the newest record the body shows; null when unknown (no Last-Modified is sent). */
  lastModified: string | null;
  language?: string;
  /** Request headers the body depends on besides the URL. */
  vary?: string;
};

/** 200 with validators, or 304 without a body when the client's copy (If-None-Match / If-Modified-Since) is current. */
export function sendCached(req: FastifyRequest, reply: FastifyReply, out: CachedBody): FastifyReply {
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'Cache-Control': out.cacheControl,
    ETag: out.content.etag,
    ...(out.lastModified ? { 'Last-Modified': new Date(out.lastModified).toUTCString() } : {}),
    ...(out.language ? { 'Content-Language': out.language } : {}),
    ...(out.vary ? { Vary: out.vary } : {}),
  };
  reply.headers(headers);
  if (fresh(req.headers, { etag: headers.ETag, 'last-modified': headers['Last-Modified'] })) return reply.code(304).send();
  return reply.code(200).type(out.contentType).send(out.content.bytes);
}

/** The HTML 404: never cached, so a draft published a moment later is not hidden behind a stored 404. */
export function sendHtmlNotFound(reply: FastifyReply, html: string, language: string): FastifyReply {
  return reply
    .code(404)
    .headers({ ...SECURITY_HEADERS, 'Cache-Control': 'no-store', 'Content-Language': language })
    .type(HTML_TYPE)
    .send(html);
}
