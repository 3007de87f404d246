/**
 * Times as the tables store them: `*_at` is ISO 8601 text in UTC with exactly
 * six fraction digits, `*_epoch` is seconds as a real number. The service sends
 * microseconds (v1.4 `timestamp.display`, v2 `timestamp.created_at`), which
 * `Date` would cut to milliseconds, so the conversions go through an integer
 * count of microseconds instead.
 */

const MICROS_PER_SECOND = 1_000_000;
const MICROS_PER_DAY = 86_400 * MICROS_PER_SECOND;

const TWO_DIGITS: readonly string[] = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

// Date, time, optional fraction of any length, optional zone (Z, ±HH, ±HHMM, ±HH:MM).
const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/**
 * Renders epoch seconds as `2026-11-22T03:06:17.123456Z` (UTC, always 6
 * fraction digits), rounded to the microsecond. Epoch seconds in a double
 * keep every microsecond within 2^32 seconds of 1970 (1833 to 2106); beyond
 * that the last digit is as exact as the number is.
 */
export function toIsoMicros(epochSeconds: number): string {
  if (!Number.isFinite(epochSeconds)) throw new RangeError(`not a finite epoch: ${epochSeconds}`);
  return isoFromMicros(Math.round(epochSeconds * MICROS_PER_SECOND));
}

/**
 * Epoch seconds of an ISO 8601 date-time, microseconds kept (finer fractions
 * are rounded to the microsecond). A time without a zone is taken as UTC, the
 * zone the service always writes. Null when the text is not such a date-time.
 */
export function epochFromIso(iso: string): number | null {
  const micros = microsFromIso(iso);
  return micros === null ? null : micros / MICROS_PER_SECOND;
}

/**
 * The same instant rendered as {@link toIsoMicros} does (text in that form
 * already is returned as it is); null when `iso` is not a date-time.
 */
export function normalizeIso(iso: string): string | null {
  const micros = microsFromIso(iso);
  if (micros === null) return null;
  return isCanonicalIso(iso) ? iso : isoFromMicros(micros);
}

/**
 * Whether `iso` is already in the stored form (`YYYY-MM-DDTHH:MM:SS.ffffffZ`),
 * given that {@link microsFromIso} accepted it: the service's own times are,
 * so the normalizer can keep the text instead of rendering it again.
 */
export function isCanonicalIso(iso: string): boolean {
  return (
    iso.length === 27 &&
    iso.charCodeAt(10) === 84 /* T */ &&
    iso.charCodeAt(19) === 46 /* . */ &&
    iso.charCodeAt(26) === 90
  ); /* Z */
}

/** Integer microseconds since the epoch of an ISO 8601 date-time, or null. */
export function microsFromIso(iso: string): number | null {
  if (isCanonicalIso(iso)) {
    const fast = canonicalMicros(iso);
    if (fast !== null) return fast;
  }
  const m = ISO_PATTERN.exec(iso);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const zoneHours = Number(m[10]);
    const zoneMinutes = m[11] === undefined ? 0 : Number(m[11]);
    if (zoneHours > 23 || zoneMinutes > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (zoneHours * 60 + zoneMinutes);
  }
  const seconds = secondsOf(year, month, day, hour, minute, second) - offsetMinutes * 60;
  return seconds * MICROS_PER_SECOND + fractionMicros(m[7]);
}

/**
 * Whether a time in the stored form is one every target can store: the years
 * 0001 to 9999. PostgreSQL has no year 0, and DuckDB and PostgreSQL read
 * times as this four-digit-year text; an item with a time outside is rejected
 * rather than failing its whole page at the target. Decided on the text, not
 * on microseconds, which a double no longer holds exactly that far from 1970.
 */
export function isStorableIso(iso: string): boolean {
  return isCanonicalIso(iso) && !iso.startsWith('0000');
}

/** {@link toIsoMicros} of epoch seconds when {@link isStorableIso}, else null. */
export function storableIsoFromEpoch(epochSeconds: number): string | null {
  // Far beyond any storable year (and beyond what Date can render): no text to check.
  if (!Number.isFinite(epochSeconds) || Math.abs(epochSeconds) > 1e12) return null;
  const iso = toIsoMicros(epochSeconds);
  return isStorableIso(iso) ? iso : null;
}

/** `2026-11-22T03:06:17.123456Z` for an integer count of microseconds since the epoch. */
export function isoFromMicros(micros: number): string {
  const days = Math.floor(micros / MICROS_PER_DAY);
  const ofDay = micros - days * MICROS_PER_DAY;
  const secondOfDay = Math.floor(ofDay / MICROS_PER_SECOND);
  const fraction = ofDay - secondOfDay * MICROS_PER_SECOND;
  // Civil date from days since 1970-01-01 (the proleptic Gregorian algorithm
  // of H. Hinnant's "chrono-compatible low-level date algorithms").
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9999) {
    // Outside four-digit years: Date's expanded-year form, rarely if ever met.
    const ms = Math.floor(micros / 1000);
    return `${new Date(ms).toISOString().slice(0, -1)}${String(micros - ms * 1000).padStart(3, '0')}Z`;
  }
  const hour = Math.floor(secondOfDay / 3600);
  const minute = Math.floor((secondOfDay - hour * 3600) / 60);
  const second = secondOfDay - hour * 3600 - minute * 60;
  return (
    `${String(year).padStart(4, '0')}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hour]}:` +
    `${TWO_DIGITS[minute]}:${TWO_DIGITS[second]}.${String(fraction).padStart(6, '0')}Z`
  );
}

/** The stored form read back by character codes, without the regular expression; null when a field is out of range. */
function canonicalMicros(iso: string): number | null {
  if (iso.charCodeAt(4) !== 45 || iso.charCodeAt(7) !== 45 || iso.charCodeAt(13) !== 58 || iso.charCodeAt(16) !== 58)
    return null;
  const year = digits(iso, 0, 4);
  const month = digits(iso, 5, 2);
  const day = digits(iso, 8, 2);
  const hour = digits(iso, 11, 2);
  const minute = digits(iso, 14, 2);
  const second = digits(iso, 17, 2);
  const fraction = digits(iso, 20, 6);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || fraction < 0) return null;
  return secondsOf(year, month, day, hour, minute, second) * MICROS_PER_SECOND + fraction;
}

/** The decimal value of `length` digits at `start`, or -1 when one is not a digit. */
function digits(text: string, start: number, length: number): number {
  let value = 0;
  for (let i = start; i < start + length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

function fractionMicros(digits: string | undefined): number {
  if (digits === undefined) return 0;
  if (digits.length <= 6) return Number(digits.padEnd(6, '0'));
  // Round beyond the microsecond; a carry into the next second is just 1_000_000.
  return Math.round(Number(`${digits.slice(0, 6)}.${digits.slice(6)}`));
}

/** Seconds since the epoch of a UTC civil time (Date.UTC would read years 0-99 as 1900-1999). */
function secondsOf(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146_097 + doe - 719_468;
  return days * 86_400 + hour * 3600 + minute * 60 + second;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29;
  return DAYS_IN_MONTH[month - 1] ?? 31;
}
