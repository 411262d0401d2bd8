import { InvalidFieldError } from '../errors.ts';

/** Stored form of every timestamp: ISO 8601 UTC with milliseconds, which sorts as text on both dialects. */
export function toStoredDate(ms: number): string {
  return new Date(ms).toISOString();
}

/** The one output shape for dates: `2026-11-21T10:15:00+0000`. */
export function formatApiDate(stored: string): string;
export function formatApiDate(stored: string | null): string | null;
export function formatApiDate(stored: string | null): string | null {
  if (stored === null) return null;
  return `${stored.slice(0, 19)}+0000`;
}

const INPUT_DATE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Parses `Y-m-d\TH:i:sP` (also `+0000` and `Z`). A query string may have decoded an unencoded `+` to
 * a space, so a space where the offset sign stands is read as `+`. Returns epoch milliseconds.
 */
export function parseApiDate(field: string, raw: string): number {
  const normalised = raw.replace(/ (\d{2}:?\d{2})$/, '+$1');
  const match = INPUT_DATE.exec(normalised);
  if (!match) {
    throw new InvalidFieldError(field, "must be a date like '2026-11-21T10:15:00+00:00'");
  }
  const [, y, mo, d, h, mi, s, offset] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(base);
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    throw new InvalidFieldError(field, 'is not a valid calendar date and time');
  }
  let instant = base;
  if (offset !== 'Z') {
    const sign = offset.startsWith('-') ? -1 : 1;
    const digits = offset.slice(1).replace(':', '');
    if (Number(digits.slice(2)) > 59 || Number(digits.slice(0, 2)) > 23) {
      throw new InvalidFieldError(field, 'has an invalid UTC offset');
    }
    instant = base - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  // Stored dates are four-digit-year text; an instant outside those years would not sort or print.
  if (instant < EARLIEST || instant > LATEST) {
    throw new InvalidFieldError(field, 'must lie between the years 1000 and 9999 in UTC');
  }
  return instant;
}

const EARLIEST = Date.UTC(1000, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59);
