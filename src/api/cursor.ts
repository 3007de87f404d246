/**
 * A search cursor: the `next_cursor` of a page, exactly as the service sent
 * it. The spec shows a string, but the service's own mobile SDK models it as
 * an array of strings, so ivsync takes any JSON value and never looks inside
 * (design.md "Rules": a cursor is opaque, sent back as it came). The API
 * client reads it, the crawler carries it, the store keeps it as a checkpoint;
 * this module is the one definition they share.
 */
export type Cursor = string | number | boolean | readonly unknown[] | Readonly<{ [key: string]: unknown }>;

/**
 * The cursor a page's `next_cursor` holds, or null where it marks the last
 * page: `null`, absent, `""` or `[]` (an empty string or array could not
 * lead anywhere when sent back).
 */
export function readCursor(value: unknown): Cursor | null {
  if (value === undefined || value === null || value === '') return null;
  if (Array.isArray(value) && value.length === 0) return null;
  return value as Cursor;
}

/**
 * One text per cursor value, the same for equal values whatever the order of
 * an object's keys: what loop detection compares, so that an array handed
 * out twice is recognised although it is a new object each time.
 */
export function cursorKey(cursor: Cursor): string {
  return JSON.stringify(cursor, (_key, value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, record[k]]),
    );
  });
}

/** The cursor as JSON, cut to `max` characters, for one-line messages. */
export function showCursor(cursor: Cursor, max = 60): string {
  const text = JSON.stringify(cursor);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** The checkpoint column's text: the cursor as JSON, so that whatever shape it has comes back unchanged. */
export function cursorText(cursor: Cursor | null): string | null {
  return cursor === null ? null : JSON.stringify(cursor);
}

/** The cursor a checkpoint column holds (see `cursorText`); throws on text that is not JSON. */
export function parseCursorText(text: string | null): Cursor | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`a stored cursor is not JSON text: ${JSON.stringify(text.slice(0, 40))}`);
  }
  return readCursor(value);
}
