import { describe, expect, it } from 'vitest';
import { outlasts } from '../../src/crawl/engine/straggler.js';

describe('outlasts', () => {
  it.each([
    {
      name: 'early, at 150 ms: a stream of 140 pages ends well before the bucket serves 400',
      rest: 140,
      rtt: 150,
      left: 400,
      cut: false,
    },
    {
      name: 'early, at 1 s: 140 pages one after another outlast 400 pages at 10 a second',
      rest: 140,
      rtt: 1000,
      left: 400,
      cut: true,
    },
    {
      name: 'balanced at 1 s: ten streams of 30 pages end with the bucket',
      rest: 30,
      rtt: 1000,
      left: 300,
      cut: false,
    },
    {
      name: 'the end at 1 s: two pages one after another outlast ten pages left',
      rest: 2,
      rtt: 1000,
      left: 10,
      cut: true,
    },
    { name: 'the end at 150 ms: two pages take 0.3 s, the bucket needs 1 s', rest: 2, rtt: 150, left: 10, cut: false },
    {
      name: 'the end at 1 s: a rest just over a page is two requests, two round trips, against 1.3 s of bucket',
      rest: 1.1,
      rtt: 1000,
      left: 13,
      cut: true,
    },
    { name: 'the end at 150 ms: the same rest takes 0.3 s', rest: 1.1, rtt: 150, left: 13, cut: false },
    { name: 'one page is never cut', rest: 1, rtt: 1000, left: 1, cut: false },
  ])('$name', ({ rest, rtt, left, cut }) => {
    expect(outlasts({ restPages: rest, roundTripMs: rtt, pagesLeft: left, spacingMs: 100 })).toBe(cut);
  });

  it('cuts no more once the crawl has twice the streams the bucket serves at the round trip', () => {
    const rests = { restPages: 140, roundTripMs: 1000, pagesLeft: 400, spacingMs: 100 };
    // At 1 s and 10 requests/s the bucket serves 10 streams: 19 may still grow, 20 may not.
    expect(outlasts(rests, 19)).toBe(true);
    expect(outlasts(rests, 20)).toBe(false);
    // At 3 s, 60.
    expect(outlasts({ ...rests, roundTripMs: 3000 }, 59)).toBe(true);
    expect(outlasts({ ...rests, roundTripMs: 3000 }, 60)).toBe(false);
  });
});
