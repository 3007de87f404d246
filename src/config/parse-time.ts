import { InputError, type InputSource } from '../errors.js';
import { quotedValue, shownValue } from './quoted-value.js';

/** 2000-01-01T00:00:00Z: the service holds no session older than this, so an earlier time is a mistake. */
export const EARLIEST_TIME = 946_684_800;

/**
 * How far after now a time may lie: a day, for clocks that disagree and a time
 * zone given wrong. Further is a mistake, and an expensive one: every window up
 * to it would be planned and written.
 */
export const MAX_SECONDS_AHEAD = 86_400;

/** Epoch values of other units, recognised by their digit count around now. */
const UNITS: ReadonlyArray<{ digits: number; name: string; perSecond: number }> = [
  { digits: 13, name: 'milliseconds', perSecond: 1e3 },
  { digits: 16, name: 'microseconds', perSecond: 1e6 },
  { digits: 19, name: 'nanoseconds', perSecond: 1e9 },
];

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]([\d:.]+)(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An epoch as messages show it: ISO 8601 UTC, without milliseconds when there are none. */
export function isoForMessage(epoch: number): string {
  return new Date(epoch * 1000).toISOString().replace('.000Z', 'Z');
}

function bad(problem: string, source: InputSource, value: string | number): InputError {
  return new InputError('BAD_TIME', problem, { source, value: shownValue(value) });
}

/**
 * Epoch seconds of an ISO 8601 date or date-time (UTC without an offset), or undefined for anything else, 2024-02-30
 * included.
 */
function parseIso(text: string): number | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [, year, month, day, time, zone] = m;
  const ms = Date.parse(
    time === undefined ? `${year}-${month}-${day}T00:00:00Z` : `${year}-${month}-${day}T${time}${zone ?? 'Z'}`,
  );
  if (!Number.isFinite(ms)) return undefined;
  // Date.parse rolls 2024-02-30 over to March 1st; a date that does not exist is a typo.
  const check = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (
    check.getUTCFullYear() !== Number(year) ||
    check.getUTCMonth() !== Number(month) - 1 ||
    check.getUTCDate() !== Number(day)
  )
    return undefined;
  return ms / 1000;
}

/** Why an epoch-seconds number after tomorrow is wrong: the likely unit it was given in, else its size. */
function tooLateNumber(text: string, epoch: number, digits: number, nowSeconds: number): string {
  for (const unit of UNITS) {
    const seconds = epoch / unit.perSecond;
    if (digits === unit.digits && seconds >= EARLIEST_TIME && seconds <= nowSeconds + MAX_SECONDS_AHEAD) {
      return (
        `${text} looks like epoch ${unit.name} (${isoForMessage(seconds)}); give epoch seconds: ` +
        `${Math.floor(seconds)}`
      );
    }
  }
  if (digits > 11) return `${text} has ${digits} digits, but epoch seconds have 10 (until the year 2286)`;
  return `${text} is ${isoForMessage(epoch)}, more than a day after now (${isoForMessage(Math.floor(nowSeconds))})`;
}

/**
 * Parses a time a user typed: epoch seconds (`1700000000`, `1700000000.5`) or
 * an ISO 8601 date or date-time (`2024-01-31`, `2024-01-31T12:00:00Z`; a time
 * without an offset is taken as UTC), and returns epoch seconds. A time before
 * 2000-01-01 or more than a day after `nowSeconds` is refused, naming the
 * likely mistake (a 13-digit epoch is in milliseconds, and so on), before any
 * window is planned for it. Errors carry the value and its source.
 */
export function parseTime(value: string | number, source: InputSource, nowSeconds: number): number {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const numeric = /^\d+(\.\d+)?$/.test(text);
  const epoch = numeric ? Number(text) : parseIso(text);
  if (epoch === undefined || !Number.isFinite(epoch)) {
    const what = shownValue(value) === undefined ? `the value (${quotedValue(value)})` : quotedValue(value);
    throw bad(
      `${what} is not a time: give an ISO 8601 date or date-time (2024-01-31, 2024-01-31T12:00:00Z) or epoch seconds`,
      source,
      value,
    );
  }
  const digits = numeric ? text.split('.')[0]!.replace(/^0+(?=\d)/, '').length : 0;
  if (epoch > nowSeconds + MAX_SECONDS_AHEAD) {
    throw bad(
      numeric
        ? tooLateNumber(text, epoch, digits, nowSeconds)
        : `${text} is more than a day after now (${isoForMessage(Math.floor(nowSeconds))})`,
      source,
      value,
    );
  }
  if (epoch < EARLIEST_TIME) {
    const hint = numeric && digits < 10 ? `; epoch seconds of this century have 10 digits, this has ${digits}` : '';
    throw bad(`${text} is ${isoForMessage(epoch)}, before 2000-01-01, older than any session${hint}`, source, value);
  }
  return epoch;
}
