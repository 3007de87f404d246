import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { nextRuns, shortestGapMs } from '../../src/daemon/schedule.js';

/*
 * The gap between a schedule's ticks: what a run's refresh budget is a share of. `*\/N * * * *` is known without
 * node-cron; every other expression is read by it.
 */

/** The shortest gap node-cron's next ticks show. */
function cronGapMs(expression: string, timezone: string): number {
  const runs = nextRuns(expression, timezone, 12).map((d) => d.getTime());
  return Math.min(...runs.slice(1).map((t, i) => t - runs[i]!));
}

// Offsets of odd minutes, none with daylight saving time: node-cron's ticks are read from the wall clock, and an hour
// repeated in autumn would make its gap depend on the day the test runs.
const ZONES = ['UTC', 'Asia/Kathmandu', 'Asia/Kolkata', 'Australia/Eucla', 'Pacific/Marquesas'];

describe('shortestGapMs', () => {
  it('reads every N minutes, N a divisor of 60, as node-cron does in any time zone: the default schedule too', () => {
    const expressions = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].map((n) => `*/${n} * * * *`);
    expect(expressions).toContain(DEFAULTS.daemon.schedule);
    for (const expression of expressions)
      for (const zone of ZONES)
        expect(shortestGapMs(expression, zone), `${expression} ${zone}`).toBe(cronGapMs(expression, zone));
  });

  it('asks node-cron for anything else, and still refuses what is no schedule', () => {
    // Every 7 minutes is not every N minutes all day long: at the top of the hour the gap is 4 (56 → 0).
    expect(shortestGapMs('*/7 * * * *', 'UTC')).toBeLessThanOrEqual(7 * 60_000);
    expect(shortestGapMs('*/7 * * * *', 'UTC')).toBeGreaterThanOrEqual(4 * 60_000);
    expect(shortestGapMs('0 */6 * * *', 'Asia/Kolkata')).toBe(6 * 3_600_000);
    expect(shortestGapMs('*/10 * * * * *', 'UTC')).toBe(10_000);
    expect(() => shortestGapMs('61 * * * *', 'UTC')).toThrow(/not a cron expression/);
  });
});
