import { UserError } from '../errors.js';

/**
 * Parses a command-line time: epoch seconds (`1700000000`, `1700000000.5`) or
 * an ISO 8601 date or date-time (`2024-01-31`, `2024-01-31T12:00:00Z`; a time
 * without an offset is taken as UTC). Returns epoch seconds.
 */
export function parseTime(value: string | number, option: string): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return value;
    throw new UserError('BAD_TIME', `${option} must be epoch seconds or an ISO 8601 time, got ${value}`);
  }
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) {
    const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(text) && text.length > 10;
    const ms = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : hasZone ? text : `${text}Z`);
    if (Number.isFinite(ms)) return ms / 1000;
  }
  throw new UserError('BAD_TIME', `${option} must be epoch seconds or an ISO 8601 time, got '${value}'`);
}
