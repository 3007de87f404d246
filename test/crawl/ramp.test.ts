import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/api/rate-limiter.js';
import { Ramp, RAMP_STEP_MS } from '../../src/crawl/engine/ramp.js';

/*
 * The ramp against the real bucket on a fake clock: each grow starts a
 * stream whose first request takes a token and stays in flight (no answer
 * until the test says so).
 */

describe('Ramp', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => void vi.useRealTimers());

  function crawl(rate: number) {
    const bucket = new RateLimiter({ rate, now: () => Date.now() });
    const starts: number[] = [];
    let answered = false;
    let streams = 0;
    const request = () =>
      void bucket.schedule(() => {
        starts.push(Date.now());
        return new Promise<void>(() => undefined);
      });
    const ramp = new Ramp(
      bucket,
      () => answered,
      () => {
        streams++;
        request();
        return Promise.resolve(true);
      },
    );
    return { bucket, starts, ramp, request, answer: () => void (answered = true), streams: () => streams };
  }

  it('before the first answer, starts a stream at every slot nothing waits for, at the slot', async () => {
    const c = crawl(10);
    // The crawl begins with one stream per resource: two requests, at 0 and 100.
    c.request();
    c.request();
    c.ramp.start();
    await vi.advanceTimersByTimeAsync(950);
    expect(c.starts).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    expect(c.streams()).toBe(8);
    expect(c.bucket.idleMs).toBe(0);
  });

  it('grows no faster than a stream per RAMP_STEP_MS when the slots are shorter (the limit lifted)', async () => {
    const c = crawl(100_000);
    c.request();
    c.ramp.start();
    await vi.advanceTimersByTimeAsync(55);
    // At the first slot (the bucket's next token is free at once), then one each step: not one per microsecond.
    expect(c.streams()).toBe(1 + Math.floor(55 / RAMP_STEP_MS));
  });

  it('ends at the first answer: from then the room watch decides', async () => {
    const c = crawl(10);
    c.request();
    c.ramp.start();
    await vi.advanceTimersByTimeAsync(350);
    expect(c.starts).toEqual([0, 100, 200, 300]);
    c.answer();
    await vi.advanceTimersByTimeAsync(1000);
    expect(c.starts).toEqual([0, 100, 200, 300]);
    expect(c.streams()).toBe(3);
  });

  it('adds nothing while a request waits for its token, nor once stopped', async () => {
    const c = crawl(4);
    // Three requests of the streams there are: the bucket is busy until 500.
    c.request();
    c.request();
    c.request();
    c.ramp.start();
    await vi.advanceTimersByTimeAsync(600);
    expect(c.starts).toEqual([0, 250, 500]);
    expect(c.streams()).toBe(0);
    // A stream asks for its next page: the slot at 750 is its.
    c.request();
    await vi.advanceTimersByTimeAsync(300);
    expect(c.starts).toEqual([0, 250, 500, 750]);
    expect(c.streams()).toBe(0);
    // The slot at 1000 finds nothing waiting.
    await vi.advanceTimersByTimeAsync(200);
    expect(c.starts).toEqual([0, 250, 500, 750, 1000]);
    expect(c.streams()).toBe(1);
    c.ramp.stop();
    await vi.advanceTimersByTimeAsync(2000);
    expect(c.streams()).toBe(1);
  });
});
