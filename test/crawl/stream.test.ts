import { describe, expect, it } from 'vitest';
import { ItemDensity } from '../../src/crawl/engine/item-density.js';
import { spanOver, type SpanWindow } from '../../src/crawl/engine/span.js';
import { splitParts } from '../../src/crawl/engine/split-parts.js';
import { canSplit, cutCandidates, openStream, seenBy, unfetched, type Stream } from '../../src/crawl/engine/stream.js';
import { windowState as w } from './window-state.js';

/** A window [start, end) of which the span covers [lo, hi). */
const part = (start: number, end: number, lo = start, hi = end): SpanWindow => ({ window: w(start, end), lo, hi });

describe('canSplit', () => {
  const windows = [part(200, 300), part(100, 200)];
  it.each([
    { name: 'inside its current window, after enough pages', current: 0, position: 250, pages: 3, split: true },
    { name: 'too few pages yet', current: 0, position: 250, pages: 2, split: false },
    { name: 'at the top of the window: nothing paged into it', current: 0, position: 300, pages: 3, split: false },
    { name: 'at the bottom of the window: nothing left in it', current: 0, position: 200, pages: 3, split: false },
    { name: 'the second window, paged into', current: 1, position: 150, pages: 9, split: true },
    { name: 'past the last window', current: 2, position: 100, pages: 9, split: false },
  ])('$name: $split', ({ current, position, pages, split }) => {
    expect(canSplit({ windows, current, position, pages }, 3)).toBe(split);
  });

  it('never cuts a window the stream covers only from partway up', () => {
    expect(canSplit({ windows: [part(0, 100, 40, 100)], current: 0, position: 70, pages: 5 }, 1)).toBe(false);
  });
});

describe('a stream and its spans', () => {
  it('a span over windows runs from the bottom of the last to the top of the first, unbegun', () => {
    const windows = [part(200, 300, 200, 280), part(100, 200)];
    expect(spanOver('authentications', windows)).toEqual({
      resource: 'authentications',
      from: 100,
      to: 280,
      windows,
      cursor: null,
      started: 0,
    });
  });

  it('a stream opens at the top of its span, carrying on from what the stream before it saw', () => {
    const span = { ...spanOver('authentications', [part(200, 300), part(100, 200)]), seen: seenOf(4, 90, 60) };
    const stream = openStream(span, 'now');
    expect([stream.position, stream.current, stream.pages, stream.items, stream.covered]).toEqual([300, 0, 4, 90, 60]);
    expect([unfetched(stream), seenBy(stream), stream.closing, stream.startedAt]).toEqual([
      200,
      seenOf(4, 90, 60),
      false,
      'now',
    ]);
    stream.windows.pop();
    expect(span.windows).toHaveLength(2);
    expect(unfetched(stream)).toBe(100);
  });
});

describe('cutCandidates', () => {
  /** A stream over [lo, hi), at the top of it, which has or has not had a page of its own back. */
  const stream = (lo: number, hi: number, answered: boolean, closing = false): Stream => ({
    ...openStream(spanOver('authentications', [part(lo, hi)]), 'now'),
    answered,
    closing,
  });
  const uniform = () => 0.1;

  it('before any page of the crawl is back, every open stream, the longest rest first', () => {
    const streams = [stream(0, 100, false), stream(100, 400, false), stream(400, 500, false, true)];
    expect(cutCandidates(streams, false, uniform).map((s) => s.windows[0]!.lo)).toEqual([100, 0]);
  });

  it('once one is back, only the streams that had a page of their own, however long the rest of the others', () => {
    // The one still waiting covers the oldest, widest range: a history as dense there is only a guess.
    const streams = [stream(0, 10_000, false), stream(10_000, 10_100, true), stream(10_100, 10_150, true)];
    expect(cutCandidates(streams, true, uniform).map((s) => s.windows[0]!.lo)).toEqual([10_000, 10_100]);
  });

  it('weighs each rest by its own density', () => {
    const streams = [stream(0, 100, true), stream(100, 150, true)];
    const density = (s: Stream) => (s.windows[0]!.lo === 0 ? 0.1 : 1);
    expect(cutCandidates(streams, true, density).map((s) => s.windows[0]!.lo)).toEqual([100, 0]);
  });
});

describe('splitParts', () => {
  it('makes one pending window per range, with the key of the window split and each covered whole', () => {
    const window = w(0, 100, { status: 'running', cursor: 'c', pages: 7 });
    const { specs, parts } = splitParts(
      window,
      [
        [0, 30],
        [30, 60],
      ],
      'now',
    );
    const key = { account: 'default', resource: 'authentications', apiVersion: '1.4' };
    expect(specs).toEqual([
      { ...key, windowStart: 0, windowEnd: 30 },
      { ...key, windowStart: 30, windowEnd: 60 },
    ]);
    expect(
      parts.map((p) => [p.lo, p.hi, p.window.status, p.window.cursor, p.window.pages, p.window.updatedAt]),
    ).toEqual([
      [0, 30, 'pending', null, 0, 'now'],
      [30, 60, 'pending', null, 0, 'now'],
    ]);
  });
});

describe('ItemDensity', () => {
  it('is unknown until a full page of a resource was seen, then items per second', () => {
    const density = new ItemDensity();
    density.add('authentications', 24, 10);
    expect(density.of('authentications')).toBeNull();
    density.add('authentications', 26, 15);
    expect(density.of('authentications')).toBe(2);
    expect(density.of('fingerprints')).toBeNull();
    density.add('fingerprints', 30, 75);
    expect(density.of(null)).toBe(80 / 100);
  });

  it.each([
    { name: 'a stream that saw a full page has its own', items: 30, covered: 10, expected: 3 },
    { name: 'a stream that saw less borrows its resource’s', items: 10, covered: 10, expected: 2 },
    { name: 'a full page over no seconds says nothing of its own', items: 30, covered: 0, expected: 2 },
  ])('$name', ({ items, covered, expected }) => {
    const density = new ItemDensity();
    density.add('authentications', 50, 25);
    expect(density.ofStream({ resource: 'authentications', items, covered })).toBe(expected);
    expect(new ItemDensity().ofStream({ resource: 'authentications', items: 10, covered: 10 })).toBeNull();
  });
});

function seenOf(pages: number, items: number, seconds: number) {
  return { pages, items, seconds };
}
