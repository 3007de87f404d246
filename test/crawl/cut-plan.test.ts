import { describe, expect, it } from 'vitest';
import { planCut, type CutInput } from '../../src/crawl/engine/cut-plan.js';

// A stream over four windows of 1,000 s, newest first.
const windows = [
  { lo: 3000, hi: 4000 },
  { lo: 2000, hi: 3000 },
  { lo: 1000, hi: 2000 },
  { lo: 0, hi: 1000 },
];
const base: CutInput = { windows, started: 1, current: 0, position: 3500, density: null, canSplit: false };

describe('planCut', () => {
  it.each([
    {
      name: 'before any page: whole windows, as near the middle in time as an edge allows',
      input: { position: 4000, density: null },
      cut: { kind: 'hand-over', at: 2 },
    },
    {
      name: 'the edge nearest the middle of what is left to fetch',
      input: { position: 3500, density: 0.1 },
      cut: { kind: 'hand-over', at: 2 },
    },
    {
      name: 'windows the stream began are never handed over',
      input: { started: 3, current: 2, position: 1800, density: 0.1 },
      cut: { kind: 'hand-over', at: 3 },
    },
    {
      name: 'a rest expected to fit in one page stays whole',
      input: { started: 3, current: 2, position: 1400, density: 0.015 },
      cut: null,
    },
    {
      name: 'under two pages: cut in the middle, two requests at once instead of one after the other',
      input: { windows: [{ lo: 0, hi: 4000 }], started: 1, position: 3000, density: 0.012, canSplit: true },
      cut: { kind: 'split', at: 1500 },
    },
    {
      name: 'no lopsided cut: a part under a quarter of the rest is not worth a stream',
      input: {
        windows: [
          { lo: 100, hi: 4000 },
          { lo: 0, hi: 100 },
        ],
        started: 1,
        position: 4000,
        density: null,
      },
      cut: null,
    },
    {
      name: 'inside the current window, when it may be split and no edge is near the middle',
      input: { windows: [{ lo: 0, hi: 4000 }], started: 1, position: 3000, density: 0.1, canSplit: true },
      cut: { kind: 'split', at: 1500 },
    },
    {
      name: 'the upper part of a split holds whole pages: 9.5 pages left, 5 above the cut',
      input: { windows: [{ lo: 0, hi: 4000 }], started: 1, position: 950, density: 0.25, canSplit: true },
      cut: { kind: 'split', at: 450 },
    },
    {
      name: 'of cuts leaving as many requests a part, more pages above, which sends first: 2.8 pages, 2 above',
      input: { windows: [{ lo: 0, hi: 4000 }], started: 1, position: 280, density: 0.25, canSplit: true },
      cut: { kind: 'split', at: 80 },
    },
    {
      name: 'but no part under a quarter of the rest: 2.2 pages, 1 above',
      input: { windows: [{ lo: 0, hi: 4000 }], started: 1, position: 220, density: 0.25, canSplit: true },
      cut: { kind: 'split', at: 120 },
    },
    {
      name: 'no split without leave, whatever the rest',
      input: { windows: [{ lo: 0, hi: 4000 }], started: 1, position: 3000, density: 0.1, canSplit: false },
      cut: null,
    },
    {
      name: 'no split without a density',
      input: { windows: [{ lo: 0, hi: 4000 }], started: 1, position: 3000, density: null, canSplit: true },
      cut: null,
    },
    {
      name: 'a window edge near the middle beats a split',
      input: { position: 3990, density: 0.1, canSplit: true },
      cut: { kind: 'hand-over', at: 2 },
    },
    { name: 'nothing left', input: { started: 4, current: 3, position: 0, density: 0.1 }, cut: null },
  ])('$name', ({ input, cut }) => {
    expect(planCut({ ...base, ...input } as CutInput)).toEqual(cut);
  });
});
