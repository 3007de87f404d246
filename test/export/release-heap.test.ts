import { describe, expect, it } from 'vitest';
import { releaseHeap } from '../../src/store/export/release-heap.js';

const MB = 1024 * 1024;

/** Rows as an export reads them: objects of text, most of them garbage soon after, some kept a while. */
function churn(): number {
  const kept: Array<Array<{ id: string; raw: string }>> = [];
  let made = 0;
  for (let chunk = 0; chunk < 300; chunk++) {
    const rows = [];
    for (let i = 0; i < 2000; i++) rows.push({ id: `svc-${chunk}-${i}`, raw: `${'x'.repeat(200)}${chunk}:${i}` });
    made += rows.length;
    kept.push(rows);
    if (kept.length > 20) kept.shift();
  }
  // What is still kept becomes garbage as this returns.
  return made;
}

describe('releaseHeap', () => {
  it('gives the memory of garbage rows back to the system, not only to the heap', () => {
    // Once, so that what the first call costs to set up is not in the figures.
    releaseHeap();
    const before = process.memoryUsage();
    expect(churn()).toBe(600_000);
    const grown = process.memoryUsage();
    // The heap took the rows' memory from the system: the case where giving it back matters.
    expect(grown.rss - before.rss).toBeGreaterThan(40 * MB);
    releaseHeap();
    const after = process.memoryUsage();
    // A regular full collection empties the heap's pages but keeps them (rss unchanged): this returns them.
    expect(grown.rss - after.rss).toBeGreaterThan((grown.rss - before.rss) / 2);
    expect(after.heapTotal).toBeLessThan(grown.heapTotal / 2);
  });
});
