import { createHash } from 'node:crypto';

/** Where the previous page stopped: the last session it returned. */
export interface KeysetPosition {
  readonly micros: number;
  readonly serviceId: string;
}

/** A short fingerprint of everything that defines a result set, so a cursor cannot be replayed against another query. */
export function queryHash(query: unknown): string {
  return createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, 16);
}

/** Opaque to clients: base64url of the keyset position and the query hash. */
export function encodeCursor(position: KeysetPosition, hash: string): string {
  return Buffer.from(JSON.stringify([position.micros, position.serviceId, hash])).toString('base64url');
}

/** The position, or null when the cursor is malformed or belongs to another query. */
export function decodeCursor(cursor: string, hash: string): KeysetPosition | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return null;
  const [micros, serviceId, cursorHash] = parsed as unknown[];
  if (typeof micros !== 'number' || !Number.isSafeInteger(micros) || typeof serviceId !== 'string' || cursorHash !== hash) return null;
  return { micros, serviceId };
}

/** Offset cursors for the short management lists (webhooks, domains). */
export function encodeOffsetCursor(offset: number, list: string): string {
  return Buffer.from(JSON.stringify([offset, list])).toString('base64url');
}

export function decodeOffsetCursor(cursor: string, list: string): number | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && Number.isInteger(parsed[0]) && (parsed[0] as number) >= 0 && parsed[1] === list) {
      return parsed[0] as number;
    }
  } catch {
    // fall through: malformed
  }
  return null;
}
