import { z } from 'zod';

// Both rules are published as the field's `pattern`, and the server checks that same pattern, so the schema
// accepts exactly what the server does.

const HOST = String.raw`(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}`;
const PCHAR = String.raw`(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})`;
/**
 * An http(s) URL on a domain name (at least two labels, a letters-only top-level label): no IP address, port or
 * credentials; path, query and fragment in RFC 3986 characters.
 */
export const HTTP_URL_PATTERN = new RegExp(String.raw`^https?://${HOST}(?:/(?:${PCHAR}|/)*)?(?:\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?$`);
export const httpUrl = () =>
  z.url({ protocol: /^https?$/, hostname: z.regexes.domain }).max(2048).regex(HTTP_URL_PATTERN, 'must be an http(s) URL on a domain name, without port or credentials');

/** An address whose domain has a letters-only top-level label (so "0@com" is refused), in the characters RFC 5321 needs. */
export const EMAIL_PATTERN = new RegExp(String.raw`^[A-Za-z0-9_'+-]+(?:\.[A-Za-z0-9_'+-]+)*@${HOST}$`);
export const emailInput = () => z.email({ pattern: EMAIL_PATTERN }).max(254).meta({ pattern: EMAIL_PATTERN.source });
