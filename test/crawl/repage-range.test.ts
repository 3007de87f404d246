import { describe, expect, it } from 'vitest';
import { partPages, windowItems } from '../../src/crawl/refresh/repage-range.js';
import type { WindowState } from '../../src/store/sink.js';
import { windowState } from './window-state.js';

const NOW = 2_000_000;
/** A week's window whose last pass paged [passFrom, passTo) and counted `items` there. */
const week = (items: number, passFrom: number | null, passTo: number | null, patch: Partial<WindowState> = {}) =>
  windowState(0, 604_800, { status: 'done', items, passFrom, passTo, syncedTo: 604_800, ...patch });

// A refresh pages a part of a window, and that pass's count is the part's: the window's items are its density over
// the window's span, not the count. Taking the count for the window capped a wider part at the narrower one's pages.
describe('windowItems', () => {
  it.each([
    { name: 'last pass covered the window: its count', window: week(1000, 0, 604_800), items: 1000 },
    { name: 'never paged in part: its count', window: week(1000, null, null), items: 1000 },
    { name: 'pass over a wider span: its count', window: week(1000, -100, 700_000), items: 1000 },
    { name: 'last pass a tenth of it: ten times its count', window: week(100, 0, 60_480), items: 1000 },
    { name: 'last pass the newest half: twice its count', window: week(50, 302_400, 604_800), items: 100 },
    {
      name: 'window open at now: up to now',
      window: windowState(0, 604_800, { status: 'done', items: 10, passFrom: 0, passTo: 1_000, syncedTo: 1_000 }),
      now: 2_000,
      items: 20,
    },
    { name: 'last pass saw nothing: nothing', window: week(0, 0, 60_480), items: 0 },
  ])('$name', ({ window, now, items }) => {
    expect(windowItems(window, now ?? NOW)).toBeCloseTo(items, 6);
  });
});

describe('partPages', () => {
  it.each([
    { name: 'whole window after a whole pass', window: week(1000, 0, 604_800), lo: 0, hi: 604_799, pages: 40 },
    // 500 items between its first and last session, and those two: 502, 21 pages, not 20.
    { name: 'half the window after a whole pass', window: week(1000, 0, 604_800), lo: 302_400, hi: 604_799, pages: 21 },
    { name: 'the older half, the same', window: week(1000, 0, 604_800), lo: 0, hi: 302_399, pages: 21 },
    { name: 'just short of a page, and its two ends', window: week(1000, 0, 604_800), lo: 0, hi: 13_907, pages: 1 },
    {
      name: 'just short of a page, and its two ends past it',
      window: week(1000, 0, 604_800),
      lo: 0,
      hi: 14_514,
      pages: 2,
    },
    // 50 items over the newest 46,000 s of a week: [0, 598,000) holds about 650 of them and its two ends, 27 pages,
    // not the sliver's 2.
    {
      name: 'most of the window after a pass over a sliver',
      window: week(50, 558_800, 604_800),
      lo: 0,
      hi: 597_999,
      pages: 27,
    },
    { name: 'the whole window after a pass over a tenth', window: week(100, 0, 60_480), lo: 0, hi: 604_799, pages: 40 },
    { name: 'the part the last pass paged', window: week(100, 0, 60_480), lo: 0, hi: 60_479, pages: 5 },
    { name: 'one second: one page', window: week(1000, 0, 604_800), lo: 5, hi: 5, pages: 1 },
    {
      name: 'a window never completed is paged whole',
      window: week(100, 0, 60_480, { status: 'failed' }),
      lo: 5,
      hi: 5,
      pages: 40,
    },
    { name: 'nothing seen to go by: one page', window: week(0, 0, 60_480), lo: 0, hi: 604_799, pages: 1 },
  ])('$name', ({ window, lo, hi, pages }) => {
    expect(partPages(window, lo, hi, NOW)).toBe(pages);
  });
});
