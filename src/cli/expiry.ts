import { InvalidArgumentError } from '@commander-js/extra-typings';

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^([1-9]\d{0,4})([mhdw])$/;

/** `--expires-in 30d`: a whole number of minutes (m), hours (h), days (d) or weeks (w) from now. */
export function expiresIn(value: string, now = Date.now()): Date {
  const match = DURATION.exec(value);
  if (!match) throw new InvalidArgumentError('Use a whole number and a unit m, h, d or w, e.g. 90m, 12h, 30d, 8w.');
  return new Date(now + Number(match[1]) * UNIT_MS[match[2]]);
}

// ISO 8601 as zod's iso.datetime({ offset: true }) and iso.date() take it, written out here because option parsers
// run while the command line is read: importing zod would cost every command (--help too) a sixth of a second.
const INSTANT = /^(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))(?:T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$/;

/** A date-time with an offset, or a date, that exists (no 31 April). */
function isInstant(value: string): boolean {
  const day = INSTANT.exec(value)?.[1];
  return day !== undefined && new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;
}

/** `--expires-at 2027-01-31T12:00:00Z` (an offset is required) or a date, meaning its start in UTC; must be in the future. */
export function expiresAt(value: string, now = Date.now()): Date {
  if (!isInstant(value)) {
    throw new InvalidArgumentError('Use an ISO 8601 date-time with an offset (2027-01-31T12:00:00Z) or a date (2027-01-31).');
  }
  const at = new Date(value);
  if (at.getTime() <= now) throw new InvalidArgumentError(`${at.toISOString()} is not in the future.`);
  return at;
}
