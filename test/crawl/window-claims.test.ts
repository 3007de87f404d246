import { describe, expect, it } from 'vitest';
import { claimTasks, unclaimed, WindowClaims, type ClaimedWindow } from '../../src/crawl/engine/window-claims.js';

const w = (windowStart: number, windowEnd: number, more: Partial<ClaimedWindow> = {}): ClaimedWindow => ({
  account: 'default',
  resource: 'authentications',
  apiVersion: '1.4',
  windowStart,
  windowEnd,
  ...more,
});

describe('unclaimed', () => {
  const taken = [w(100, 200)];
  it.each([
    ['a window taken', [w(100, 200)], []],
    ['a piece of a taken window (split while paging)', [w(150, 200)], []],
    ['a window overlapping a taken one', [w(50, 150)], []],
    ['the window before, touching', [w(0, 100)], [w(0, 100)]],
    ['the window after, touching', [w(200, 300)], [w(200, 300)]],
    ['another resource', [w(100, 200, { resource: 'fingerprints' })], [w(100, 200, { resource: 'fingerprints' })]],
    ['another account', [w(100, 200, { account: 'b' })], [w(100, 200, { account: 'b' })]],
    ['another interface', [w(100, 200, { apiVersion: '2' })], [w(100, 200, { apiVersion: '2' })]],
  ] as const)('%s', (_name, wanted, expected) => {
    expect(unclaimed(wanted, taken)).toEqual(expected);
  });
});

describe('WindowClaims', () => {
  it('gives each window to one run until that run releases it', () => {
    const claims = new WindowClaims();
    const tasks = [{ window: w(0, 100) }, { window: w(100, 200) }];
    expect(claimTasks(claims, 'backfill', [tasks[1]!])).toEqual([tasks[1]]);
    expect(claimTasks(claims, 'sync', tasks)).toEqual([tasks[0]]);
    // A run claims again what it holds already.
    expect(claimTasks(claims, 'backfill', tasks)).toEqual([tasks[1]]);
    claims.release('backfill');
    expect(claimTasks(claims, 'sync-2', tasks)).toEqual([tasks[1]]);
  });

  it('keeps nothing back without claims or a run', () => {
    const tasks = [{ window: w(0, 100) }];
    expect(claimTasks(undefined, 'run', tasks)).toEqual(tasks);
    expect(claimTasks(new WindowClaims(), undefined, tasks)).toEqual(tasks);
  });
});
