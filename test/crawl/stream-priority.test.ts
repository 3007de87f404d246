import { describe, expect, it } from 'vitest';
import { streamPriority } from '../../src/crawl/engine/stream-priority.js';

describe('streamPriority', () => {
  it('puts the larger expected rest first, within the crawl’s own class', () => {
    const ranks = [0.5, 1, 2, 10, 40, 1_000].map((rest) => streamPriority(1, rest));
    for (let i = 1; i < ranks.length; i++) expect(ranks[i]!).toBeGreaterThan(ranks[i - 1]!);
    for (const rank of ranks) {
      expect(rank).toBeGreaterThan(1);
      expect(rank).toBeLessThan(2);
    }
  });

  it('serves a stream whose rest is not known yet first, one with nothing left last, still within the class', () => {
    const unknown = streamPriority(3, null);
    expect(unknown).toBeGreaterThan(streamPriority(3, 1_000_000));
    expect(unknown).toBeLessThan(4);
    expect(streamPriority(3, 0)).toBe(3);
    expect(streamPriority(0, Number.NaN)).toBe(0);
  });
});
