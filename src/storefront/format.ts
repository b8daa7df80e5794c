import { isBundledImagePath } from '../assets/images.ts';
// Amounts are integers in øre; these turn them into what shoppers and schema.org read, exactly (no float maths).

/** øre as a decimal string with two places ("149500" → "1495.00"), the number format schema.org's `price` expects. */
export function decimalPrice(oere: string): string {
  const digits = oere.padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

const formats = new Map<string, Intl.NumberFormat>();

/** A price as the shop's language writes it: "1.495,00 kr." in Danish. Intl formats the decimal string exactly. */
export function formatPrice(oere: string, currency: string, language: string): string {
  const key = `${language}|${currency}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(language, { style: 'currency', currency });
    formats.set(key, format);
  }
  return format.format(decimalPrice(oere) as `${number}`);
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** A date as the page's language writes it ("27. november 2026", "27 November 2026"), in Danish time. */
export function formatDate(at: Date | string, language: string): string {
  let format = dateFormats.get(language);
  if (!format) {
    format = new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'Europe/Copenhagen' });
    dateFormats.set(language, format);
  }
  return format.format(typeof at === 'string' ? new Date(at) : at);
}

/**
 * Only https images and the service's own bundled ones (src/assets/images.ts) are shown: the pages'
 * Content-Security-Policy allows no other source.
 */
export const isShownImage = (url: string | null | undefined): url is string => typeof url === 'string' && (url.startsWith('https://') || isBundledImagePath(url));

/** The newest of some ISO timestamps (null when there are none). */
export function newestOf(stamps: Iterable<string | null | undefined>): string | null {
  let max = -Infinity;
  for (const s of stamps) if (s) max = Math.max(max, Date.parse(s));
  return max === -Infinity ? null : new Date(max).toISOString();
}
