import type { FastifyInstance } from 'fastify';

// W3C Trace Context: version-traceid-parentid-flags, lower-case hex; version ff, an all-zero trace or parent id,
// and anything after the four fields of version 00 make the header invalid.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-|$)/;

/** The header when it is a valid traceparent, else undefined (a malformed one is ignored, never logged). */
export function validTraceparent(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = TRACEPARENT.exec(header);
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]) || /^0+$/.test(m[3])) return undefined;
  if (m[1] === '00' && header.length !== 55) return undefined;
  return header.slice(0, 55);
}

/** Every log line of a request carries the caller's `traceparent`, so its logs join the caller's trace. */
export function logTraceparent(app: FastifyInstance): void {
  app.setChildLoggerFactory((logger, bindings, opts, rawReq) => {
    const traceparent = validTraceparent(rawReq.headers.traceparent);
    return logger.child(traceparent ? { ...bindings, traceparent } : bindings, opts);
  });
}
