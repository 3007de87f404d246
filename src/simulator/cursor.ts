import { createHash } from 'node:crypto';

/** Where the previous page stopped: the last session it returned. */
export interface KeysetPosition {
  readonly micros: number;
  readonly serviceId: string;
}

/**
 * A short fingerprint of everything that defines a result set, so a cursor cannot be replayed against another query.
 */
export function queryHash(query: unknown): string {
  return createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, 16);
}

/**
 * The shape of `next_cursor`: a string as the spec shows it, or an array of
 * strings as the service's own mobile SDK models it. A client must send either
 * back exactly as it came.
 */
export type CursorStyle = 'string' | 'array';

/** A cursor on the wire, in either style. */
export type SimCursor = string | readonly string[];

/**
 * Opaque to clients: in the string style base64url of the keyset position and
 * the query hash; in the array style the same three parts as strings.
 */
export function encodeCursor(position: KeysetPosition, hash: string, style: CursorStyle = 'string'): SimCursor {
  if (style === 'array') return [String(position.micros), position.serviceId, hash];
  return Buffer.from(JSON.stringify([position.micros, position.serviceId, hash])).toString('base64url');
}

/**
 * The `next_cursor` of a query's last page. The array style varies between
 * the two ends a client must take, `null` and `[]`, by query, so that a crawl
 * over many windows meets both.
 */
export function endOfPages(hash: string, style: CursorStyle = 'string'): [] | null {
  return style === 'array' && hash.charCodeAt(0) % 2 === 0 ? [] : null;
}

/** A page's `next_cursor`: a cursor after `after` while more sessions follow (`after` not null), else the end. */
export function pageCursor(
  after: KeysetPosition | null,
  hash: string,
  style: CursorStyle = 'string',
): SimCursor | null {
  return after === null ? endOfPages(hash, style) : encodeCursor(after, hash, style);
}

/**
 * The position, or null when the cursor is malformed, belongs to another
 * query, or comes in another shape than the style hands out (an array cursor
 * sent back as a string, as a strict service would refuse it).
 */
export function decodeCursor(cursor: unknown, hash: string, style: CursorStyle = 'string'): KeysetPosition | null {
  let parts: unknown;
  if (style === 'array') {
    if (!Array.isArray(cursor) || !(cursor as unknown[]).every((p) => typeof p === 'string')) return null;
    const [micros, serviceId, cursorHash] = cursor as string[];
    parts =
      cursor.length === 3 && micros !== undefined && /^\d+$/.test(micros)
        ? [Number(micros), serviceId, cursorHash]
        : null;
  } else {
    if (typeof cursor !== 'string') return null;
    try {
      parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
  }
  if (!Array.isArray(parts) || parts.length !== 3) return null;
  const [micros, serviceId, cursorHash] = parts as unknown[];
  if (
    typeof micros !== 'number' ||
    !Number.isSafeInteger(micros) ||
    typeof serviceId !== 'string' ||
    cursorHash !== hash
  )
    return null;
  return { micros, serviceId };
}

/** Offset cursors for the short management lists (webhooks, domains). */
export function encodeOffsetCursor(offset: number, list: string): string {
  return Buffer.from(JSON.stringify([offset, list])).toString('base64url');
}

export function decodeOffsetCursor(cursor: string, list: string): number | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      Number.isInteger(parsed[0]) &&
      (parsed[0] as number) >= 0 &&
      parsed[1] === list
    ) {
      return parsed[0] as number;
    }
  } catch {
    // fall through: malformed
  }
  return null;
}
