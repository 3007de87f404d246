import { describe, expect, it } from 'vitest';
import { checkWindowCount, gridCellCount } from '../../src/config/interval.js';
import { TooManyWindowsError } from '../../src/config/too-many-windows-error.js';
import { gridCells, missingWindows, requestRange, splitRemainder } from '../../src/crawl/engine/windows.js';
import { windowState } from './window-state.js';

const scope = { account: 'default', resource: 'authentications' as const, apiVersion: '1.4' as const };

const state = (windowStart: number, windowEnd: number) =>
  windowState(windowStart, windowEnd, {
    status: 'done',
    pages: 1,
    items: 1,
    attempts: 1,
    passFrom: windowStart,
    passTo: windowEnd,
    passStartedAt: '2026-01-01T00:00:00.000000Z',
    syncedTo: windowEnd,
  });

describe('gridCells', () => {
  it.each([
    [0, 99, 100, [[0, 100]]],
    [
      50,
      150,
      100,
      [
        [0, 100],
        [100, 200],
      ],
    ],
    [100, 100, 100, [[100, 200]]],
    [
      99.5,
      200,
      100,
      [
        [0, 100],
        [100, 200],
        [200, 300],
      ],
    ],
  ])('cells holding [%s, %s] of size %s', (from, to, size, expected) => {
    expect(gridCells(from, to, size)).toEqual(expected);
  });
});

describe('gridCellCount', () => {
  it.each([
    [0, 99, 100],
    [50, 150, 100],
    [100, 100, 100],
    [99.5, 200, 100],
    [0, 0, 100],
    [1_735_689_600, 1_767_225_600, 604_800],
  ])('counts the cells of [%s, %s] of size %s without building them', (from, to, size) => {
    expect(gridCellCount(from, to, size)).toBe(gridCells(from, to, size).length);
  });
  it('is 0 for an empty interval', () => {
    expect(gridCellCount(200, 100, 100)).toBe(0);
  });
});

describe('checkWindowCount', () => {
  it.each([
    [0, 999, 100, 10, false],
    [0, 1000, 100, 10, true],
    // A --to in milliseconds with week windows: 2.9 million windows.
    [1_735_689_600, 1_767_225_600_000, 604_800, 100_000, true],
  ])('[%s, %s] in windows of %s with a cap of %s: refused %s', (from, to, size, cap, refused) => {
    const check = () => checkWindowCount(from, to, { windowSeconds: size, maxWindows: cap });
    if (refused) expect(check).toThrow(TooManyWindowsError);
    else expect(check).not.toThrow();
  });
});

describe('missingWindows', () => {
  it('inserts every cell of an empty target', () => {
    expect(missingWindows(scope, 0, 250, 100, []).map((w) => [w.windowStart, w.windowEnd])).toEqual([
      [0, 100],
      [100, 200],
      [200, 300],
    ]);
  });
  it('leaves cells that exist, and split cells, alone', () => {
    const existing = [state(0, 40), state(40, 70), state(70, 100), state(200, 300)];
    expect(missingWindows(scope, 0, 250, 100, existing).map((w) => [w.windowStart, w.windowEnd])).toEqual([[100, 200]]);
  });
  it('plans one gap per cell beside many existing windows, each looked at about once', () => {
    // Every other cell of 20,000 exists: scanning from the first window for every cell would be quadratic.
    const existing = Array.from({ length: 10_000 }, (_, i) => state(i * 200, i * 200 + 100));
    const gaps = missingWindows(scope, 0, 1_999_999, 100, existing);
    expect(gaps).toHaveLength(10_000);
    expect(gaps[0]).toMatchObject({ windowStart: 100, windowEnd: 200 });
    expect(gaps.at(-1)).toMatchObject({ windowStart: 1_999_900, windowEnd: 2_000_000 });
  });
  it('fills the gaps between windows of another size', () => {
    const existing = [state(0, 10), state(20, 30)];
    expect(missingWindows(scope, 0, 50, 100, existing).map((w) => [w.windowStart, w.windowEnd])).toEqual([
      [10, 20],
      [30, 100],
    ]);
  });
});

describe('requestRange', () => {
  // An item at epoch e must be inside the requested range under every reading of its edges.
  const readings = [
    ['inclusive', 'inclusive'],
    ['inclusive', 'exclusive'],
    ['exclusive', 'inclusive'],
    ['exclusive', 'exclusive'],
  ] as const;
  const inside = (e: number, r: { start: number; end: number }, [s, t]: readonly [string, string]) =>
    (s === 'inclusive' ? e >= r.start : e > r.start) && (t === 'inclusive' ? e <= r.end : e < r.end);
  it.each(readings)('keeps every item of [from, to) when start is %s and end is %s', (s, t) => {
    const r = requestRange(100, 200);
    for (const e of [100, 100.000001, 150, 199, 199.999999]) expect(inside(e, r, [s, t])).toBe(true);
  });
});

describe('splitRemainder', () => {
  it.each([
    {
      name: 'keeps the fetched top and cuts the unfetched rest in two',
      keepFrom: 601,
      at: 300,
      plan: {
        keepFrom: 601,
        ranges: [
          [0, 300],
          [300, 601],
        ],
      },
    },
    { name: 'nothing fetched in the window yet: no split', keepFrom: 1000, at: 300, plan: null },
    { name: 'the cut must lie inside the rest', keepFrom: 601, at: 601, plan: null },
    { name: 'a rest of one second cannot be cut', keepFrom: 1, at: 0, plan: null },
    { name: 'cuts fall on whole seconds', keepFrom: 601, at: 300.5, plan: null },
  ])('$name', ({ keepFrom, at, plan }) => {
    expect(splitRemainder(0, 1000, keepFrom, at)).toEqual(plan);
  });
});
