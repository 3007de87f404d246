/** Record keys a terminal line leaves out: pino's own, and the ids every record of a run carries. */
const SKIPPED = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'run', 'daemon']);

/** Longer texts (a JSON body, a list of findings) belong to --verbose or the JSON logs, not a terminal line. */
const MAX_TEXT = 60;

function shown(value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string' || value === '' || value.length > MAX_TEXT) return undefined;
  return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
}

/**
 * A log record as one line for a person at a terminal: its message, then
 * `key=value` for each short plain field, in the record's order. Lists and
 * objects (a run's outcomes, a plan per resource) are left out: they made a
 * daemon's terminal show a 600-character blob per run. `--verbose` and the
 * JSON lines off a terminal keep every field.
 */
export function readableLine(record: Readonly<Record<string, unknown>>, messageKey = 'msg'): string {
  const parts = [String(record[messageKey] ?? '')];
  for (const [key, value] of Object.entries(record)) {
    if (SKIPPED.has(key) || key === messageKey) continue;
    const text = shown(value);
    if (text !== undefined) parts.push(`${key}=${text}`);
  }
  return parts.join(' ');
}
