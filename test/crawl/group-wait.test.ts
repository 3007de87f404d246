import { describe, expect, it } from 'vitest';
import { groupWaitMs, nextArrivalMs, type GroupState } from '../../src/crawl/engine/group-wait.js';

const base: GroupState = { now: 1_000, lastStart: 960, gapMs: 100, waitingPages: 1, maxPages: 64, arrivalMs: 5 };

describe('groupWaitMs', () => {
  it.each<[string, Partial<GroupState>, number]>([
    ['fast arrivals wait for the rest of the gap', {}, 60],
    ['the gap has passed', { lastStart: 800 }, 0],
    ['no transaction yet', { lastStart: Number.NEGATIVE_INFINITY }, 0],
    ['the group is full', { waitingPages: 64 }, 0],
    ['one page so far: nothing known of the pace', { arrivalMs: null }, 0],
    ['at a token limit (a page every 100 ms)', { arrivalMs: 100 }, 0],
    ['just under four pages a gap', { arrivalMs: 26 }, 0],
    ['four pages a gap', { arrivalMs: 25 }, 60],
    ["every open stream's page waits: none can join", { waitingPages: 3, openStreams: 3 }, 0],
    ['a stream still fetching may join', { waitingPages: 2, openStreams: 3 }, 60],
  ])('%s', (_name, change, expected) => {
    expect(groupWaitMs({ ...base, ...change })).toBe(expected);
  });
});

describe('nextArrivalMs', () => {
  it.each<[number | null, number, number]>([
    [null, 40, 40],
    [10, 60, 20],
    [10, 0, 8],
  ])('mean %s, the next page %s ms later: %s', (mean, since, expected) => {
    expect(nextArrivalMs(mean, since)).toBeCloseTo(expected);
  });
});
