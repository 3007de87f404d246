import { describe, expect, it } from 'vitest';
import { afterPage, pageDensity } from '../../src/crawl/engine/item-density.js';

describe('pageDensity', () => {
  it('times a stream’s first page from its newest session, the stretch above it one more gap', () => {
    // A range topped 200 s above the newest of five sessions spaced 10 s apart (50 s down to 10).
    const epochs = [50, 40, 30, 20, 10];
    expect(pageDensity(true, epochs, 5, 250, 0)).toEqual({ items: 5, seconds: 62.5 });
    // Any later page covers what it covers: its stretch above is a gap after the page before.
    expect(pageDensity(false, epochs, 5, 250, 0)).toEqual({ items: 5, seconds: 250 });
  });

  it('counts a first page whole when its sessions tell nothing of a gap', () => {
    expect(pageDensity(true, [10], 1, 250, 0)).toEqual({ items: 1, seconds: 250 });
    expect(pageDensity(true, [], 0, 250, 0)).toEqual({ items: 0, seconds: 250 });
    expect(pageDensity(true, [null, null], 2, 250, 0)).toEqual({ items: 2, seconds: 250 });
    // Sessions spread over the whole stretch: never more seconds than the page covered.
    expect(pageDensity(true, [250, 0], 2, 250, 0)).toEqual({ items: 2, seconds: 250 });
  });
});

describe('afterPage', () => {
  it('prices a rest at the density of the last few pages, not of all a stream ever saw', () => {
    // Forty pages of a sparse year (25 items a day), then ten pages of a burst (25 items an hour).
    let seen = { items: 0, covered: 0 };
    for (let i = 0; i < 40; i++) seen = afterPage(seen, { items: 25, seconds: 86_400 });
    expect(seen.items / seen.covered).toBeCloseTo(25 / 86_400, 10);
    for (let i = 0; i < 10; i++) seen = afterPage(seen, { items: 25, seconds: 3_600 });
    // Averaged over all 50 pages the burst would look 19 times sparser than it is; priced by the last pages, under 3.
    const burst = 25 / 3_600;
    expect(burst / (seen.items / seen.covered)).toBeLessThan(3);
    const all = (50 * 25) / (40 * 86_400 + 10 * 3_600);
    expect(burst / all).toBeGreaterThan(15);
  });
});
