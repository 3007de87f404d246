import type { ImageRow, NormalizedSession, TextFieldRow, WarningRow } from './rows.js';
import { isStorableText, storableRaw, storableText } from './storable-text.js';

/** JSON columns: their text escapes what it carries, and `raw` has its own rule (storableRaw). */
const JSON_TEXT = new Set(['raw']);

/**
 * The session with every typed text value storable on any target (see
 * storable-text.ts): U+0000 and lone surrogates become U+FFFD in the row and
 * in its child rows, and `raw` keeps the text as received. Child keys that
 * become equal keep the last row, as JSON.parse keeps the last of two equal
 * member names. Returns the same object when nothing had to change, which is
 * every item whose text has no `\u` escape at all.
 */
export function storableSession(session: NormalizedSession): NormalizedSession {
  const raw = session.row.raw;
  // Such characters reach a parsed item only through escapes; the text says whether there are any.
  if (raw.indexOf('\\u') === -1 && isStorableText(raw) && !warningsNeedIt(session.warnings)) return session;
  return {
    ...session,
    row: storableRow(session.row),
    textFields: lastByKey(session.textFields.map(storableTextField), (r) => r.key),
    images: lastByKey(session.images.map(storableImage), (r) => r.name),
    warnings: lastByKey(session.warnings.map(storableWarning), (r) => r.code),
  } as NormalizedSession;
}

/** A copy of the row with every string column storable; a string column stays a string. */
function storableRow<R extends object>(source: R): R {
  const row = { ...source };
  for (const column of Object.keys(row) as Array<keyof R>) {
    const value = row[column];
    if (typeof value !== 'string') continue;
    row[column] = (JSON_TEXT.has(String(column)) ? storableRaw(value) : storableText(value)) as typeof value;
  }
  return row;
}

/** Response warnings come from outside the item's text. */
function warningsNeedIt(warnings: readonly WarningRow[]): boolean {
  for (const w of warnings)
    if (!isStorableText(w.code) || (w.message !== null && !isStorableText(w.message))) return true;
  return false;
}

function orNull(text: string | null): string | null {
  return text === null ? null : storableText(text);
}

function storableTextField(r: TextFieldRow): TextFieldRow {
  return { service_id: storableText(r.service_id), key: storableText(r.key), value: orNull(r.value) };
}

/** `metadata` is JSON text made by JSON.stringify, which escapes both characters. */
function storableImage(r: ImageRow): ImageRow {
  return {
    service_id: storableText(r.service_id),
    name: storableText(r.name),
    url: orNull(r.url),
    metadata: r.metadata,
  };
}

function storableWarning(r: WarningRow): WarningRow {
  return {
    service_id: storableText(r.service_id),
    code: storableText(r.code),
    message: orNull(r.message),
    seen_at: r.seen_at,
  };
}

function lastByKey<T>(rows: T[], key: (row: T) => string): T[] {
  if (rows.length < 2) return rows;
  const byKey = new Map<string, T>();
  for (const row of rows) {
    const k = key(row);
    // Delete first, so that the kept row takes the place of the last one.
    byKey.delete(k);
    byKey.set(k, row);
  }
  return byKey.size === rows.length ? rows : [...byKey.values()];
}
