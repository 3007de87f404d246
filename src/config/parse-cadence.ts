import { InputError, type InputSource } from '../errors.js';
import { scheduleProblem } from './check-schedule.js';
import { quotedValue, shownValue } from './quoted-value.js';

/** How often the daemon verifies: a period since the last verify, or a cron expression of its own. */
export type Cadence =
  | { readonly kind: 'every'; readonly seconds: number; readonly text: string }
  | { readonly kind: 'cron'; readonly expression: string };

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
const DURATION = /^(\d+(?:\.\d+)?)\s*([smhdw])$/;

/**
 * `6h`, `1d`, `90m`, `2w` (s, m, h, d, w) as a period; anything with a space
 * as a node-cron expression (`0 3 * * *`). Refused with its source otherwise.
 */
export function parseCadence(text: string, source: InputSource): Cadence {
  const trimmed = text.trim();
  const m = DURATION.exec(trimmed);
  if (m) {
    const seconds = Number(m[1]) * UNIT_SECONDS[m[2]!]!;
    if (seconds >= 1) return { kind: 'every', seconds, text: trimmed };
  }
  if (/\s/.test(trimmed)) {
    const problem = scheduleProblem(trimmed);
    if (problem === undefined) return { kind: 'cron', expression: trimmed };
    throw new InputError('BAD_CADENCE', problem, { source, value: text });
  }
  throw new InputError(
    'BAD_CADENCE',
    `expected a period such as 6h, 1d or 2w (s, m, h, d, w), or a cron expression such as '0 3 * * *', got ` +
      `${quotedValue(text)}`,
    { source, value: shownValue(text) },
  );
}
