import type { NormalizedSession } from './rows.js';

/*
 * What every target can store, so that every target stores the same thing.
 * An item past these bounds is kept aside in `rejected_items` by the
 * normalizer, before any target sees it; left to the targets, one of them
 * would refuse it (or its neighbours with it) and the others would not.
 */

/**
 * Longest id or key, in UTF-8 bytes. Ids and keys are indexed: PostgreSQL's
 * btree refuses an entry over about 2,700 bytes (54000 "index row size
 * exceeds btree version 4 maximum"), whatever the column's type. A thousand
 * bytes leaves room for the other columns of a composite key; the service's
 * ids are a few dozen characters.
 */
export const MAX_KEY_BYTES = 1024;

/**
 * Deepest nesting of an item's JSON (the item itself is level 1). Measured:
 * SQLite's JSON functions refuse 1,000 levels ("malformed JSON"), so an
 * analyst's json_extract on such a `raw` fails; PostgreSQL's json input at
 * the default max_stack_depth (2MB) takes 10,000 and refuses 100,000 (54001
 * "stack depth limit exceeded"), and less with a smaller max_stack_depth;
 * DuckDB takes 100,000. Node's JSON.stringify overflows its stack near
 * 10,000. The service's items nest five levels at most.
 */
export const MAX_DEPTH = 128;

/** The reason an item whose JSON nests deeper than MAX_DEPTH is kept aside with. */
export const TOO_DEEP = `(item): nested more than ${MAX_DEPTH} levels deep, more than every target can store`;

/** UTF-8 length of `text`, counted only when it may exceed `limit` (a UTF-16 unit is at most 3 bytes). */
function exceedsBytes(text: string, limit: number): number | null {
  if (text.length * 3 <= limit) return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > limit ? bytes : null;
}

/** Why `id` (at `path`) cannot be a key on every target, or null when it can. */
export function oversizedKey(path: string, id: string): string | null {
  const bytes = exceedsBytes(id, MAX_KEY_BYTES);
  if (bytes === null) return null;
  return `${path}: ${bytes} bytes long, longer than the ${MAX_KEY_BYTES} bytes every target can index`;
}

/**
 * Whether the JSON value nests deeper than `limit` levels. A value nested
 * 100,000 deep parses (V8's JSON.parse does not recurse), so the walk stops
 * going down at `limit` + 1 levels: its recursion is never deeper than that,
 * and it allocates nothing (it runs on every item).
 */
export function nestsDeeperThan(value: unknown, limit: number = MAX_DEPTH): boolean {
  return typeof value === 'object' && value !== null && deeperThan(value, 1, limit);
}

function deeperThan(value: object, depth: number, limit: number): boolean {
  if (depth > limit) return true;
  if (Array.isArray(value)) {
    for (const inner of value as unknown[])
      if (typeof inner === 'object' && inner !== null && deeperThan(inner, depth + 1, limit)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const inner = record[key];
    if (typeof inner === 'object' && inner !== null && deeperThan(inner, depth + 1, limit)) return true;
  }
  return false;
}

/**
 * Whether the JSON text nests deeper than `limit` levels: brackets outside
 * strings, counted without parsing.
 */
export function textNestsDeeperThan(text: string, limit: number = MAX_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, escapes included.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * A JSON text as a `json` column of every target takes it: as it is, or, when
 * it nests deeper than MAX_DEPTH, one JSON string holding the text (the text
 * is kept whole; only its type changes).
 */
export function boundedJsonText(text: string): string {
  return textNestsDeeperThan(text) ? JSON.stringify(text) : text;
}

/**
 * Why a normalized session holds an id or key that not every target can
 * index (customer_item_id, parent_service_id, a text field's key, a photo's
 * name, a warning's code), or null when none. service_id is checked before
 * the item is normalized.
 */
export function oversizedKeyOf(session: NormalizedSession): string | null {
  const parent = session.resource === 'fingerprints' ? session.row.parent_service_id : null;
  // It runs on every item: it walks the rows as they are rather than gathering their keys into arrays.
  return (
    keyOver('customer_item_id', session.row.customer_item_id) ??
    keyOver('parent_service_id', parent) ??
    firstOver('text_fields (a key)', session.textFields, 'key') ??
    firstOver('images (a name)', session.images, 'name') ??
    firstOver('warnings (a code)', session.warnings, 'code')
  );
}

function keyOver(path: string, value: string | null): string | null {
  return value === null ? null : oversizedKey(path, value);
}

function firstOver<K extends string>(path: string, rows: ReadonlyArray<Record<K, string>>, key: K): string | null {
  for (const row of rows) {
    const reason = oversizedKey(path, row[key]);
    if (reason !== null) return reason;
  }
  return null;
}
