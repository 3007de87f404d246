import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/api/rate-limiter.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('RateLimiter', () => {
  it('spaces starts evenly: one at once, the rest wait for their slot', async () => {
    const limiter = new RateLimiter({ rate: 20 });
    const started: number[] = [];
    const done = Array.from({ length: 3 }, (_, i) => limiter.schedule(async () => started.push(i)));
    await tick();
    expect(started).toEqual([0]);
    expect(limiter.pending).toBe(2);
    expect(limiter.stats.started).toBe(1);
    await Promise.all(done);
    expect(started).toEqual([0, 1, 2]);
    expect(limiter.stats.started).toBe(3);
  });

  it('never starts more than the rate in a rolling second, however late its timers fire', async () => {
    // At 5 ms a slot, timer lateness is a large share of the spacing: the grid catches up often.
    const rate = 200;
    // The start as the limiter records it (its last clock reading before it calls the task): a clock read inside the
    // task could be a busy machine's time slice later for one start and not the next.
    let last = 0;
    const now = () => (last = performance.timeOrigin + performance.now());
    const limiter = new RateLimiter({ rate, now });
    const starts: number[] = [];
    await Promise.all(Array.from({ length: rate + 20 }, () => limiter.schedule(async () => void starts.push(last))));
    for (let k = rate; k < starts.length; k += 1) expect(starts[k]! - starts[k - rate]!).toBeGreaterThanOrEqual(1000);
  });

  it('pauseFor holds every waiting task, then runs them by priority', async () => {
    const limiter = new RateLimiter({ rate: 100 });
    limiter.pauseFor(50);
    const order: string[] = [];
    const low = limiter.schedule(async () => order.push('low'), { priority: 0 });
    const high = limiter.schedule(async () => order.push('high'), { priority: 5 });
    await tick();
    expect(order).toEqual([]);
    expect(limiter.pending).toBe(2);
    await Promise.all([low, high]);
    expect(order).toEqual(['high', 'low']);
    expect(limiter.stats.pauses).toBe(1);
  });

  it('overlapping pauses extend to the latest end and are counted once', () => {
    let now = 1_000;
    const limiter = new RateLimiter({ rate: 10, now: () => now });
    limiter.pauseFor(100); // until 1100
    now = 1_050;
    limiter.pauseFor(30); // until 1080: inside the first, ignored
    limiter.pauseFor(100); // until 1150: extends by 50
    expect(limiter.stats).toEqual({ started: 0, pausedMs: 150, pauses: 2 });
    limiter.pauseFor(0);
    expect(limiter.stats.pauses).toBe(2);
  });

  it('counts tasks in flight until they settle', async () => {
    const limiter = new RateLimiter({ rate: 10 });
    let release: () => void = () => undefined;
    const running = limiter.schedule(() => new Promise<void>((resolve) => (release = resolve)));
    await tick();
    expect(limiter.inFlight).toBe(1);
    release();
    await running;
    await tick();
    expect(limiter.inFlight).toBe(0);
  });

  it('keeps its grid when a task of a higher priority takes a slot late that another waited for', async () => {
    let now = 1_000;
    const limiter = new RateLimiter({ rate: 10, now: () => now });
    const started: string[] = [];
    const task = (name: string) => () => Promise.resolve(void started.push(`${name}@${now}`));
    const done = [limiter.schedule(task('a')), limiter.schedule(task('b'))];
    expect(started).toEqual(['a@1000']);
    // The slot at 1100 passes while the event loop is busy; at 1103 a task of a higher priority comes and takes
    // it at once. b has waited for it since 1000: the slot was used, and the next is at 1200, not 1203.
    now = 1_103;
    done.push(limiter.schedule(task('c'), { priority: 1 }));
    expect(started).toEqual(['a@1000', 'c@1103']);
    expect(limiter.waitMs).toBe(97 + limiter.spacingMs);
    now = 1_200;
    await Promise.all(done);
    expect(started).toEqual(['a@1000', 'c@1103', 'b@1200']);
  });

  it('begins a new grid when a slot went unused: nothing waited for it', async () => {
    let now = 1_000;
    const limiter = new RateLimiter({ rate: 10, now: () => now });
    await limiter.schedule(() => Promise.resolve());
    now = 1_103;
    await limiter.schedule(() => Promise.resolve());
    // Nothing waited at 1100: the grid moves to 1103, so that no burst makes up the slot.
    expect(limiter.waitMs).toBe(100);
  });

  it('counts the time a token was free and nothing waited for it, and not a pause', async () => {
    let now = 1_000;
    const limiter = new RateLimiter({ rate: 10, now: () => now });
    expect(limiter.spacingMs).toBe(100);
    expect(limiter.idleMs).toBe(0);
    now = 1_250;
    expect(limiter.idleMs).toBe(250);
    await limiter.schedule(async () => undefined);
    // Taken at 1250: the next token is free at 1350.
    now = 1_300;
    expect(limiter.idleMs).toBe(250);
    now = 1_400;
    expect(limiter.idleMs).toBe(300);
    limiter.pauseFor(200);
    now = 1_500;
    expect(limiter.idleMs).toBe(300);
    now = 1_650;
    expect(limiter.idleMs).toBe(350);
  });

  it('an aborted task leaves the queue unstarted and its token goes to the next', async () => {
    const limiter = new RateLimiter({ rate: 20 });
    const order: string[] = [];
    const first = limiter.schedule(async () => order.push('first'));
    const abort = new AbortController();
    const dropped = limiter.schedule(async () => order.push('dropped'), { signal: abort.signal });
    const last = limiter.schedule(async () => order.push('last'));
    abort.abort(new Error('tripped'));
    await expect(dropped).rejects.toThrow('tripped');
    expect(limiter.pending).toBe(1);
    await Promise.all([first, last]);
    expect(order).toEqual(['first', 'last']);
    expect(limiter.stats.started).toBe(2);
    const already = limiter.schedule(async () => order.push('never'), { signal: abort.signal });
    await expect(already).rejects.toThrow('tripped');
    expect(limiter.stats.started).toBe(2);
  });

  it('a task that throws at once rejects and leaves nothing in flight', async () => {
    const limiter = new RateLimiter({ rate: 20 });
    await expect(
      limiter.schedule(() => {
        throw new Error('sync throw');
      }),
    ).rejects.toThrow('sync throw');
    expect(limiter.inFlight).toBe(0);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses rate %s', (rate) => {
    expect(() => new RateLimiter({ rate })).toThrow(RangeError);
  });
});
