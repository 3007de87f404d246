import { describe, expect, it } from 'vitest';
import { StartSchedule } from '../../src/api/start-schedule.js';

/**
 * Drives a schedule with a backlog that never empties (every task waited since
 * 0) and timers that fire `late(k)` ms after the k-th start was free.
 */
function backlog(rate: number, starts: number, late: (k: number) => number): number[] {
  const schedule = new StartSchedule(rate, 0);
  const times: number[] = [];
  for (let k = 0; k < starts; k += 1) {
    const at = schedule.freeAt + late(k);
    schedule.take(at, 0);
    times.push(at);
  }
  return times;
}

function maxInWindow(times: number[], windowMs: number): number {
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < times.length; hi += 1) {
    while ((times[hi] ?? 0) - (times[lo] ?? 0) >= windowMs) lo += 1;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

describe('StartSchedule', () => {
  it('is free at once when made, then one slot per spacing', () => {
    expect(backlog(10, 4, () => 0)).toEqual([0, 100, 200, 300]);
  });

  it.each([
    // [timer lateness per start, starts, last start at most]
    [0.4, 101, 10_000 + 0.4 * 10 + 1],
    [3, 101, 10_000 + 3 * 10 + 3],
    [20, 101, 10_000 + 20 * 10 + 20],
  ])('wins back timers %s ms late: %i starts end by %s ms, never 11 in a rolling second', (lateness, starts, bound) => {
    const times = backlog(10, starts, () => lateness);
    // Lateness can only add up once per rolling window (ten starts), not once per start.
    expect(times[starts - 1]).toBeLessThanOrEqual(bound);
    expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(10);
  });

  it('catches up after one very late start at no more than twice the rate', () => {
    // The third start is 250 ms late (a blocked event loop).
    const times = backlog(10, 12, (k) => (k === 2 ? 250 : 0));
    expect(times.slice(0, 9)).toEqual([0, 100, 450, 500, 550, 600, 650, 700, 800]);
    const gaps = times.slice(1).map((t, i) => t - (times[i] ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(50);
    expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(10);
  });

  it('saves no unused slots: a start after an idle spell begins a new grid', () => {
    const schedule = new StartSchedule(10, 0);
    schedule.take(0, 0);
    // Nothing waited until 1 000 ms: that task starts at once ...
    expect(schedule.freeAt).toBe(100);
    schedule.take(1_000, 1_000);
    // ... and the next is a whole spacing later, not due at once to make up the gap.
    expect(schedule.freeAt).toBe(1_100);
  });

  it('makes no burst after a pause: the grid starts again where the pause ended', () => {
    const schedule = new StartSchedule(10, 0);
    schedule.take(0, 0);
    // A backlog waited since 0; a pause held it until 2 000 ms.
    schedule.take(2_000, 2_000);
    expect(schedule.freeAt).toBe(2_100);
  });

  it.each([
    [0.5, [0, 2_000, 4_000]],
    [2.5, [0, 400, 800]],
  ])('keeps the spacing at rate %s', (rate, expected) => {
    expect(backlog(rate, 3, () => 0)).toEqual(expected);
  });
});
