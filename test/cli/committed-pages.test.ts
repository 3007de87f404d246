import { describe, expect, it } from 'vitest';
import type { ServedPage } from '../../src/simulator/index.js';
import { committedPages, pageKey } from '../helpers/committed-pages.js';

// The crash-resume check counts a page as committed from the checkpoints a kill left: a wrong count fails a correct
// crawl (a page in flight counted) or lets a refetched page pass. A pass over two windows, newest first.
const range = { start: 99, end: 300 };
const route = 'POST /v1/search/fingerprints';
const served: ServedPage[] = [
  { seq: 0, request: 1, route, range, cursor: null, nextCursor: 'c1', items: 25 },
  { seq: 1, request: 2, route, range, cursor: 'c1', nextCursor: null, items: 5 },
];
const window = (start: number, status: string, cursor: string | null) => ({
  resource: 'fingerprints',
  window_start: start,
  window_end: start + 100,
  status,
  cursor,
  pass_from: 100,
  pass_to: 300,
});

describe('the pages a kill left committed', () => {
  it('counts the last page only once the window its pass ends in is done, not any window of the pass', () => {
    const upperDone = [window(200, 'done', null), window(100, 'running', '"c1"')];
    expect(committedPages(served, upperDone)).toEqual(new Set([pageKey(served[0]!)]));

    const bothDone = [window(200, 'done', null), window(100, 'done', null)];
    expect(committedPages(served, bothDone)).toEqual(new Set(served.map(pageKey)));
  });
});
