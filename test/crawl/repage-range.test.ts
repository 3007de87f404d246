import { describe, expect, it } from 'vitest';
import { epochReach, knownPartPages, partPages, windowItems } from '../../src/crawl/refresh/repage-range.js';
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

// What a part's request can return: requestRange asks from the second below the part up to its end, both ends
// included under some reading of the service's range.
describe('knownPartPages', () => {
  const window = week(1000, 0, 604_800);
  /** 25 sessions inside the part [100, 200): a page. */
  const inside = Array.from({ length: 25 }, (_, i) => 100.5 + i * 2);
  const pages = (extra: number[]) =>
    knownPartPages(window, Float64Array.from([...extra, ...inside].sort((a, b) => a - b)), 100, 199.5, NOW);

  it.each([
    { name: 'its own 25: a page', extra: [], pages: 1 },
    { name: 'one in the second below it comes back too: two', extra: [99.25], pages: 2 },
    { name: 'one on its end, which some readings include: two', extra: [200], pages: 2 },
    { name: 'none of the above: still a page', extra: [98.9, 200.5], pages: 1 },
  ])('$name', ({ extra, pages: expected }) => {
    expect(pages(extra)).toBe(expected);
  });

  it("reads a window's neighbours within a second of it", () => {
    expect(epochReach(week(0, null, null))).toEqual({ from: -1, to: 604_801 });
  });
});
