/**
 * Longest text an input error quotes. A secret pasted into the wrong member
 * (`rate: <the API token>`) must not be echoed to the terminal, a log or a
 * CI transcript, not even in part: every secret is longer than this (webhook
 * secrets need 20 characters, API tokens more), and most values worth
 * quoting back (a rate, an API version, a resource, a word such as
 * `yesterday`) are shorter.
 */
export const QUOTE_LIMIT = 12;

/** A number or a date-time (digits and `-:.TZ+`, spaces): text without a secret's letters, quoted at any length. */
const NUMBER_OR_TIME = /^[\d\s.:TZ+-]*$/;

function quotable(text: string): boolean {
  return text.length <= QUOTE_LIMIT || NUMBER_OR_TIME.test(text);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value}`;
}

/**
 * `value` as an error message shows it: a number, a date-time or a short
 * text quoted (strings in double quotes); any longer text, and any list or
 * mapping, by its type and length alone (`a string of 40 characters`).
 */
export function quotedValue(value: unknown): string {
  if (typeof value === 'string') {
    return quotable(value) ? JSON.stringify(value) : `a string of ${value.length} characters`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return kindOf(value);
}

/** The value an error carries (shown by `--json`): the value itself when quotedValue would quote it, else nothing. */
export function shownValue(value: unknown): unknown {
  if (typeof value === 'string') return quotable(value) ? value : undefined;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  return undefined;
}
