import { describe, expect, it } from 'vitest';
import { cursorPages } from '../../src/api/cursor-pages.js';
import { readPage } from '../../src/api/envelopes.js';
import { CursorLoopError } from '../../src/api/errors.js';
import type { SearchPage } from '../../src/api/service-client.js';
import { cursorKey, cursorText, parseCursorText, readCursor, showCursor } from '../../src/api/cursor.js';
import type { Cursor } from '../../src/api/cursor.js';

const ROUTE = 'POST /v1/search/authentications';

/** A body as the service would send it; `next` undefined leaves next_cursor out. */
function body(ids: string[], next?: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { item_count: ids.length, items: ids.map((service_id) => ({ service_id })) };
  if (next !== undefined) out.next_cursor = next;
  return out;
}

describe('readPage: next_cursor is any JSON value, sent back as it came', () => {
  it.each<[string, unknown, Cursor | null]>([
    ['a string', 'c2', 'c2'],
    ['an array of strings', ['1789', 's-12', 'h'], ['1789', 's-12', 'h']],
    ['an object', { after: 's-12', n: 2 }, { after: 's-12', n: 2 }],
    ['a number', 7, 7],
    ['null (the end)', null, null],
    ['absent (the end)', undefined, null],
    ['"" (the end)', '', null],
    ['[] (the end)', [], null],
  ])('%s', (_name, next, expected) => {
    const page = readPage(body(['a'], next), 'prev', ROUTE);
    expect(page.nextCursor).toEqual(expected);
    expect(page.cursor).toBe('prev');
    expect(page.items).toHaveLength(1);
  });

  it('still refuses a body without an items array', () => {
    expect(() => readPage({ next_cursor: ['x'] }, null, ROUTE)).toThrow(/no `items` array/);
  });
});

describe('cursor values', () => {
  it('compare by value whatever the key order, and tell shapes apart', () => {
    expect(cursorKey(['a', 'b'])).toBe(cursorKey(['a', 'b']));
    expect(cursorKey({ x: 1, y: ['z'] })).toBe(cursorKey({ y: ['z'], x: 1 }));
    expect(cursorKey(['a'])).not.toBe(cursorKey('a'));
    expect(cursorKey('["a"]')).not.toBe(cursorKey(['a']));
    expect(cursorKey(['a', 'b'])).not.toBe(cursorKey(['b', 'a']));
  });

  it('go into a checkpoint as JSON text and come back in the same shape', () => {
    for (const cursor of ['plain', '["looks","like","json"]', ['1789', 's-12'], { after: 's' }, 3] as Cursor[]) {
      expect(parseCursorText(cursorText(cursor))).toEqual(cursor);
    }
    expect(cursorText(null)).toBeNull();
    expect(parseCursorText(null)).toBeNull();
    expect(() => parseCursorText('not json')).toThrow(/not JSON text/);
  });

  it('end markers read as null', () => {
    expect([null, undefined, '', []].map(readCursor)).toEqual([null, null, null, null]);
    expect(readCursor([''])).toEqual(['']);
    expect(readCursor({})).toEqual({});
  });

  it('show a short form in messages', () => {
    expect(showCursor('a')).toBe('"a"');
    expect(showCursor(['a', 'b'])).toBe('["a","b"]');
    const long = showCursor(['x'.repeat(100)]);
    expect(long).toHaveLength(60);
    expect(long.endsWith('...')).toBe(true);
  });
});

/** A fetcher over a chain of bodies keyed by the canonical form of the cursor asked for. */
function chain(bodies: ReadonlyArray<[Cursor | null, Record<string, unknown>]>): {
  fetch: (cursor: Cursor | null) => Promise<SearchPage>;
  asked: Array<Cursor | null>;
} {
  const byCursor = new Map(bodies.map(([cursor, b]) => [cursor === null ? '' : cursorKey(cursor), b]));
  const asked: Array<Cursor | null> = [];
  return {
    asked,
    fetch: (cursor) => {
      asked.push(cursor);
      const found = byCursor.get(cursor === null ? '' : cursorKey(cursor));
      if (found === undefined) throw new Error(`no page for ${JSON.stringify(cursor)}`);
      return Promise.resolve(readPage(found, cursor, ROUTE));
    },
  };
}

async function collect(pages: AsyncIterable<SearchPage>): Promise<{ ids: string[]; error: unknown }> {
  const ids: string[] = [];
  try {
    for await (const page of pages) ids.push(...page.items.map((i) => (i as { service_id: string }).service_id));
  } catch (error) {
    return { ids, error };
  }
  return { ids, error: undefined };
}

describe('cursorPages', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['absent', undefined],
    ['""', ''],
    ['[]', []],
  ])('follows array cursors and stops on %s', async (_name, end) => {
    const pages = chain([
      [null, body(['a'], ['p', '1'])],
      [['p', '1'], body(['b'], ['p', '2'])],
      [['p', '2'], body(['c'], end)],
    ]);
    const { ids, error } = await collect(cursorPages(pages.fetch, null, ROUTE));
    expect(error).toBeUndefined();
    expect(ids).toEqual(['a', 'b', 'c']);
    // Sent back exactly: the same arrays, not their text.
    expect(pages.asked).toEqual([null, ['p', '1'], ['p', '2']]);
  });

  it('resumes from an array checkpoint', async () => {
    const pages = chain([
      [['p', '1'], body(['b'], ['p', '2'])],
      [['p', '2'], body(['c'], null)],
    ]);
    const { ids } = await collect(cursorPages(pages.fetch, ['p', '1'], ROUTE));
    expect(ids).toEqual(['b', 'c']);
  });

  it('an array handed out again is a loop, though it is a new array; that page is not yielded', async () => {
    const pages = chain([
      [null, body(['a'], ['p', '1'])],
      [['p', '1'], body(['b'], ['p', '2'])],
      [['p', '2'], body(['c'], ['p', '1'])],
    ]);
    const { ids, error } = await collect(cursorPages(pages.fetch, null, ROUTE));
    expect(ids).toEqual(['a', 'b']);
    expect(error).toBeInstanceOf(CursorLoopError);
    expect((error as CursorLoopError).message).toBe('cursor loop: the service returned cursor ["p","1"] twice');
    expect((error as CursorLoopError).cursor).toEqual(['p', '1']);
  });

  it('a page that hands back the checkpoint it was resumed from is a loop', async () => {
    const pages = chain([[{ k: ['p', '1'], v: 1 }, body(['b'], { v: 1, k: ['p', '1'] })]]);
    const { error } = await collect(cursorPages(pages.fetch, { k: ['p', '1'], v: 1 }, ROUTE));
    expect(error).toBeInstanceOf(CursorLoopError);
  });

  it('an array and the string of its JSON are different cursors', async () => {
    const pages = chain([
      [null, body(['a'], ['p'])],
      [['p'], body(['b'], '["p"]')],
      ['["p"]', body(['c'], null)],
    ]);
    const { ids, error } = await collect(cursorPages(pages.fetch, null, ROUTE));
    expect(error).toBeUndefined();
    expect(ids).toEqual(['a', 'b', 'c']);
  });
});
