import { describe, expect, it } from 'vitest';
import { RoomWatch } from '../../src/crawl/engine/room-watch.js';

describe('RoomWatch', () => {
  it('says "room" once a tenth of a slot went unused since the crawl last grew, and only within the last slots', () => {
    let now = 0;
    const bucket = { idleMs: 0, spacingMs: 100, waitMs: 0 };
    const watch = new RoomWatch(bucket, () => now);
    expect(watch.pollMs).toBe(25);
    expect(watch.hasRoom()).toBe(false);
    bucket.idleMs = 8;
    expect(watch.hasRoom()).toBe(false);
    bucket.idleMs = 12;
    expect(watch.hasRoom()).toBe(true);
    // Answered: the shortfall before the new stream no longer counts.
    watch.grew();
    expect(watch.hasRoom()).toBe(false);
    // A trickle spread over more than the last ten slots never adds up.
    for (let i = 0; i < 40; i++) {
      now += 100;
      bucket.idleMs += 0.5;
      expect(watch.hasRoom()).toBe(false);
    }
    now += 100;
    bucket.idleMs += 7;
    expect(watch.hasRoom()).toBe(true);
  });

  it('without a bucket there is always room, and nothing to poll', () => {
    const watch = new RoomWatch(undefined, () => 0);
    expect(watch.pollMs).toBeNull();
    expect(watch.hasRoom()).toBe(true);
  });
});
