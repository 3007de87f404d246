import { describe, expect, it } from 'vitest';
import { backfillResumeMs, crashBackoffMs } from '../../src/daemon/crash-backoff.js';
import { healthOf, type HealthFacts } from '../../src/daemon/daemon-health.js';
import { outcomeOf } from '../../src/daemon/daemon.js';
import { fairShare, shuffle, tickClaimTtlSeconds } from '../../src/daemon/fair-share.js';
import { LeaseHeldError } from '../../src/daemon/lease-held-error.js';
import { LeaseLostError } from '../../src/daemon/lease-lost-error.js';
import { accountLease, deadOnThisHost, holderId, parseHolder, tickLease } from '../../src/store/leases/lease-names.js';
import { FatalError, InterruptedError } from '../../src/errors.js';

describe('the resume of a stopped background backfill', () => {
  it.each([
    ['first stop, 5-minute schedule: at the next tick', 1, 300_000, 300_000],
    ['second stop: twice the gap', 2, 300_000, 600_000],
    ['later stops: at most ten minutes', 9, 300_000, 600_000],
    ['1-second schedule', 1, 1_000, 1_000],
    ['a sub-second gap waits a second', 1, 100, 1_000],
    ['a daily schedule: the gap, never less', 3, 86_400_000, 86_400_000],
  ])('%s', (_name, failures, gapMs, expected) => {
    expect(backfillResumeMs(failures, gapMs)).toBe(expected);
  });
});

describe('crash backoff', () => {
  const options = { threshold: 3, baseMs: 1_000, maxMs: 10_000 };
  it.each([
    [0, 0],
    [1, 0],
    [2, 0],
    [3, 1_000],
    [4, 2_000],
    [5, 4_000],
    [6, 8_000],
    [7, 10_000],
    [500, 10_000],
  ])('%i failed ticks in a row wait %i ms', (failures, wait) => {
    expect(crashBackoffMs(failures, options)).toBe(wait);
  });
  it('defaults: three failures, one minute, capped at 30 minutes', () => {
    expect(crashBackoffMs(2)).toBe(0);
    expect(crashBackoffMs(3)).toBe(60_000);
    expect(crashBackoffMs(100)).toBe(1_800_000);
  });
});

describe('health', () => {
  const base: HealthFacts = { lastTick: null, running: false, backoffUntil: null, stopping: false };
  const failed = { ok: false as const, finishedAt: 'T1', error: 'default: token rejected' };
  it.each<[string, HealthFacts, number, RegExp]>([
    ['before the first run', base, 200, /first scheduled run/],
    ['first run in progress', { ...base, running: true }, 200, /in progress/],
    ['last run succeeded', { ...base, lastTick: { ok: true, finishedAt: 'T0' } }, 200, /succeeded at T0/],
    ['last run failed', { ...base, lastTick: failed }, 503, /failed at T1: default: token rejected/],
    ['last failed, a new one in progress', { ...base, lastTick: failed, running: true }, 200, /in progress/],
    [
      'crash loop',
      { ...base, lastTick: failed, backoffUntil: 'T9' },
      503,
      /crash loop: backing off until T9: default: token rejected/,
    ],
    ['stopping', { ...base, lastTick: { ok: true, finishedAt: 'T0' }, stopping: true }, 503, /stopping/],
    [
      'a quiet webhook stream: still ok, and says why sync polls',
      {
        ...base,
        lastTick: { ok: true, finishedAt: 'T0' },
        webhooks: 'quiet: last delivery 1200 s ago (over 900 s); sync polls the 7 non-final sessions by age instead',
      },
      200,
      new RegExp(
        /"detail":"last run succeeded at T0","webhooks":"quiet: last delivery 1200 s ago \(over 900 s\); /.source +
          /sync polls the 7 non-final sessions/.source,
      ),
    ],
  ])('%s', (_name, facts, status, text) => {
    const health = healthOf(facts);
    expect(health.status).toBe(status);
    expect(JSON.stringify(health.body)).toMatch(text);
  });
});

describe('spreading accounts over daemons', () => {
  it.each([
    [4, 1, 4],
    [4, 2, 2],
    [5, 2, 3],
    [4, 3, 2],
    [1, 3, 1],
    [0, 2, 0],
    [3, 0, 3],
  ])('%i accounts, %i live daemons: claim %i first', (accounts, live, share) => {
    expect(fairShare(accounts, live)).toBe(share);
  });
  it.each([
    [2_000, 1],
    [300_000, 150],
    [100, 0.5],
  ])('ticks %i ms apart: a tick claim lives %d s', (gap, ttl) => {
    expect(tickClaimTtlSeconds(gap)).toBe(ttl);
  });
  it('shuffle is a permutation driven by the injected random source', () => {
    const items = ['a', 'b', 'c', 'd'];
    expect(shuffle(items, () => 0.999)).toEqual(['a', 'b', 'c', 'd']);
    expect(shuffle(items, () => 0)).toEqual(['b', 'c', 'd', 'a']);
    expect([...shuffle(items, Math.random)].sort()).toEqual(items);
    expect(items).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('run outcomes', () => {
  const lease = {
    name: accountLease('default'),
    holder: holderId('box', 42, 'ab12cd34'),
    acquiredAt: 'T0',
    heartbeatAt: 'T1',
    held: false,
  };
  it.each<[string, unknown, unknown]>([
    ['no error', undefined, { status: 'succeeded' }],
    ['lease held elsewhere', new LeaseHeldError(lease), { status: 'held', holder: 'box:42:ab12cd34' }],
    [
      'lease taken over mid-run',
      new LeaseLostError('account:default', 'box:43:cd34ab12'),
      { status: 'held', holder: 'box:43:cd34ab12', lost: true },
    ],
    ['interrupted', new InterruptedError('stopped'), { status: 'interrupted' }],
    ['failed', new FatalError('X', 'boom'), { status: 'failed', error: 'boom' }],
    ['not an Error', 'odd', { status: 'failed', error: 'odd' }],
  ])('%s', (_name, error, outcome) => {
    expect(outcomeOf(error)).toEqual(outcome);
  });
  it('a refused lease names its holder and since when', () => {
    expect(new LeaseHeldError(lease).message).toMatch(/account:default is held by box:42:ab12cd34 since T0/);
    expect(tickLease('a1')).toBe('tick:a1');
  });
});

describe('lease holders', () => {
  it.each([
    ['box:42:ab12cd34', { host: 'box', pid: 42, runId: 'ab12cd34' }],
    ['fe80::1:42:ab12cd34', { host: 'fe80::1', pid: 42, runId: 'ab12cd34' }],
    ['no-pid', null],
  ])('parses %s', (holder, parsed) => {
    expect(parseHolder(holder)).toEqual(parsed);
  });
  const alive = new Set([7]);
  const dead = deadOnThisHost('box', 1, (pid) => alive.has(pid));
  it.each([
    ['box:9:r', true],
    ['box:7:r', false],
    ['box:1:r', false],
    ['other:9:r', false],
    ['garbage', false],
  ])('holder %s is dead: %s', (holder, expected) => {
    expect(dead(holder)).toBe(expected);
  });
});
