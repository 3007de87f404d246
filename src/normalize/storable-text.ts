/*
 * Characters that no target can hold in a text column: U+0000 (PostgreSQL's
 * text refuses it, SQLite's functions stop at it) and a lone UTF-16 surrogate
 * (UTF-8 cannot encode it: PostgreSQL and DuckDB write U+FFFD in its place
 * unasked, SQLite writes bytes that are not UTF-8). JSON carries both as
 * escapes (`\u0000`, `\ud800`), so an item can bring them in any string.
 */

/** What a typed text column holds in place of each such character. */
export const REPLACEMENT = '\ufffd';

/** The rule as docs/schema.md states it (rendered by src/store/schema-doc.ts). */
export const STORABLE_TEXT_RULE = [
  'A character that no target can store in text, U+0000 (NUL) or a lone UTF-16 surrogate',
  '(which UTF-8 cannot encode; JSON sends both as escapes such as `\\u0000` and `\\ud800`),',
  'is stored as U+FFFD (the replacement character, `�`) in every typed text column, the',
  'child tables included, on every target alike. `raw` keeps the item exactly as received,',
  'escapes included, so the original value can always be read back from it. An item whose',
  '`service_id` holds such a character is kept aside in `rejected_items`: a replaced id',
  'would no longer name the session at the service.',
].join(' ');

/** Whether `text` can be stored as it is: no U+0000 and no lone surrogate. */
export function isStorableText(text: string): boolean {
  return text.indexOf('\u0000') === -1 && text.isWellFormed();
}

/** `text` with U+0000 and every lone surrogate replaced by U+FFFD; the same string when there is none. */
export function storableText(text: string): string {
  if (isStorableText(text)) return text;
  return text.toWellFormed().replaceAll('\u0000', REPLACEMENT);
}

/**
 * A JSON text as `raw` columns store it. Text sliced from a body that parsed
 * as JSON and was decoded from UTF-8 holds neither character literally (JSON
 * allows U+0000 only escaped, UTF-8 has no lone surrogates), and
 * JSON.stringify escapes both. Should one come through anyway, it is written
 * as its JSON escape, which inside a JSON string denotes the very same
 * character: the text changes, the document it stands for does not.
 */
export function storableRaw(text: string): string {
  if (isStorableText(text)) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1));
    if (pair) {
      out += text[i]! + text[i + 1]!;
      i++;
    } else if (c === 0 || (c >= 0xd800 && c <= 0xdfff)) {
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    } else {
      out += text[i]!;
    }
  }
  return out;
}

/**
 * The last resort for a JSON text that a target refuses (a PostgreSQL `jsonb`
 * column takes neither `\u0000` nor a lone surrogate escape): the document
 * with U+FFFD in place of such characters in its strings and keys, serialized
 * again. Text that is not JSON is kept as one JSON string.
 */
export function storableJson(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return JSON.stringify(storableText(text));
  }
  return JSON.stringify(storableValue(value));
}

function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[storableText(key)] = storableValue(inner);
    return out;
  }
  return value;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
