import { InputError, type InputSource } from '../errors.js';
import { nodeCron } from './lazy-packages.js';

/** What is wrong with a node-cron expression (5 fields, or 6 with seconds first), or undefined when nothing is. */
export function scheduleProblem(expression: string): string | undefined {
  const detail = nodeCron().validateDetailed(expression);
  if (detail.valid) return undefined;
  const first = detail.errors[0];
  return `'${expression}' is not a cron expression${first ? ` (${first.field}: ${first.message})` : ''}`;
}

/** What is wrong with an IANA time zone name, or undefined when nothing is. */
export function timezoneProblem(timezone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
    return undefined;
  } catch {
    return `'${timezone}' is not an IANA time zone (e.g. UTC, Europe/Berlin)`;
  }
}

/** Returns the expression, or throws an InputError naming where it came from. */
export function checkSchedule(expression: string, source: InputSource): string {
  const problem = scheduleProblem(expression);
  if (problem !== undefined) throw new InputError('BAD_SCHEDULE', problem, { source, value: expression });
  return expression;
}

/** Returns the time zone, or throws an InputError naming where it came from. */
export function checkTimezone(timezone: string, source: InputSource): string {
  const problem = timezoneProblem(timezone);
  if (problem !== undefined) throw new InputError('BAD_TIMEZONE', problem, { source, value: timezone });
  return timezone;
}
