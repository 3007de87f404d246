import { readCursor } from './cursor.js';
import type { Cursor } from './cursor.js';
import { itemTexts, objectMemberText } from './element-texts.js';
import { ApiError } from './errors.js';
import type { Fetched, SearchPage } from './service-client.js';

/**
 * Readers of the service's response envelopes. They check only the members
 * the client itself uses (`item`, `items`, `next_cursor`); everything inside
 * an item is left to the normalizer, and unknown members are kept, since the
 * service may add keys at any time (api-spec "Versioning").
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(route: string, what: string): ApiError {
  return new ApiError(`${route} answered 200 with ${what}`, { status: 200, route, code: 'MALFORMED_RESPONSE' });
}

function warningsOf(body: Record<string, unknown>): unknown[] {
  return Array.isArray(body.warnings) ? body.warnings : [];
}

export function readObject(body: unknown, route: string): Record<string, unknown> {
  if (!isRecord(body)) throw malformed(route, 'a body that is not a JSON object');
  return body;
}

/** `{ item, warnings? }` of the by-id and lookup routes; with the body's `text`, the item's text as sent too. */
export function readFetched(body: unknown, route: string, text?: string): Fetched {
  const record = readObject(body, route);
  if (!isRecord(record.item)) throw malformed(route, 'no `item` object');
  const itemText = text === undefined ? null : objectMemberText(text, 'item');
  return { item: record.item, warnings: warningsOf(record), ...(itemText === null ? {} : { itemText }) };
}

/**
 * `{ items, item_count, next_cursor, warnings? }` of every search route, both
 * versions. With the body's `text`, the page carries each item's text as sent.
 * `next_cursor` is taken whatever JSON it holds (the spec shows a string, the
 * service's SDK an array of strings); null, absent, "" and [] end the pages.
 */
export function readPage(body: unknown, cursor: Cursor | null, route: string, text?: string): SearchPage {
  const record = readObject(body, route);
  if (!Array.isArray(record.items)) throw malformed(route, 'no `items` array');
  const itemCount = typeof record.item_count === 'number' ? record.item_count : record.items.length;
  const texts = itemTexts(text, 'items', record.items.length);
  return {
    items: record.items,
    itemCount,
    nextCursor: readCursor(record.next_cursor),
    warnings: warningsOf(record),
    cursor,
    ...(texts === undefined ? {} : { itemTexts: texts }),
  };
}
