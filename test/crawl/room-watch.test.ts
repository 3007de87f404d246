import { describe, expect, it } from 'vitest';
import { RoomWatch } from '../../src/crawl/room-watch.js';

describe('RoomWatch', () => {
  it('says "room" once a quarter slot went unused since the crawl last grew, and only within the last slots', () => {
    let now = 0;
    const bucket = { idleMs: 0, spacingMs: 100 };
    const watch = new RoomWatch(bucket, () => now);
    expect(watch.pollMs).toBe(25);
    expect(watch.hasRoom()).toBe(false);
    bucket.idleMs = 20;
    expect(watch.hasRoom()).toBe(false);
    bucket.idleMs = 30;
    expect(watch.hasRoom()).toBe(true);
    // Answered: the shortfall before the new stream no longer counts.
    watch.grew();
    expect(watch.hasRoom()).toBe(false);
    // A trickle spread over more than the last eight slots never adds up.
    for (let i = 0; i < 40; i++) {
      now += 100;
      bucket.idleMs += 2;
      expect(watch.hasRoom()).toBe(false);
    }
    now += 100;
    bucket.idleMs += 20;
    expect(watch.hasRoom()).toBe(true);
  });

  it('without a bucket there is always room, and nothing to poll', () => {
    const watch = new RoomWatch(undefined, () => 0);
    expect(watch.pollMs).toBeNull();
    expect(watch.hasRoom()).toBe(true);
  });
});
