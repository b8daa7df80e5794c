import { z } from 'zod';
import { isBundledImagePath } from '../assets/images.ts';
import { answeredAs } from './domain-issue.ts';

const HOST = String.raw`(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}`;
const PCHAR = String.raw`(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})`;
/**
 * An http(s) URL on a domain name (at least two labels, a letters-only top-level label): no IP address, port or
 * credentials; path, query and fragment in RFC 3986 characters.
 */
export const HTTP_URL_PATTERN = new RegExp(String.raw`^https?://${HOST}(?:/(?:${PCHAR}|/)*)?(?:\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?$`);
const HttpUrlRule = z.url({ protocol: /^https?$/, hostname: z.regexes.domain }).regex(HTTP_URL_PATTERN);

/**
 * An image of a product, variant or service: an http(s) URL on a domain name, or the site path of an image that
 * ships with the service (/assets/images/<name>.<hash>.svg: what `seed --demo` gives its products and services), so
 * an agent can keep or set the demo's pictures; only the paths the service serves, any other relative path is
 * refused. Published as `format: uri-reference` with a one-line description rather than as the full pattern (which
 * costs an agent about 130 tokens of tool list per field; the rule in full is in docs/catalog.md); a value outside the rule is valid under the schema and is
 * answered with the domain error 400 invalid_image_url, never 400 invalid_request.
 */
export const imageRef = () =>
  z
    .string()
    .max(2048)
    .refine((v) => isBundledImagePath(v) || HttpUrlRule.safeParse(v).success, {
      message: 'must be an http(s) URL on a domain name, without port or credentials, or the path of an image the service ships (/assets/images/…)',
      params: answeredAs('invalid_image_url'),
    })
    .meta({
      format: 'uri-reference',
      description: 'Public http(s) URL or a bundled /assets/images/ path (400 invalid_image_url).',
    });

/**
 * An https URL on a domain name (a parcel's tracking page, say), refused with 400 invalid_request otherwise. The
 * pattern publishes what the check requires, so a client (and the fuzzer) can tell a valid URL from the schema.
 */
const HTTPS_URL_PATTERN = String.raw`^https://(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}(?:[/?#]\S*)?$`;
export const httpsUrl = () => z.url({ protocol: /^https$/, hostname: z.regexes.domain }).max(2048).meta({ pattern: HTTPS_URL_PATTERN });

/** An address whose domain has a letters-only top-level label (so "0@com" is refused), in the characters RFC 5321 needs. */
export const EMAIL_PATTERN = new RegExp(String.raw`^[A-Za-z0-9_'+-]+(?:\.[A-Za-z0-9_'+-]+)*@${HOST}$`);
export const emailInput = () => z.email({ pattern: EMAIL_PATTERN }).max(254).meta({ pattern: EMAIL_PATTERN.source });
