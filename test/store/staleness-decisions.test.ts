import { describe, expect, it } from 'vitest';
import { renderStaleness, stalenessLines } from '../../src/cli/staleness.js';
import { refreshSaved, refreshSpend } from '../../src/crawl/refresh-spend.js';
import { observedChange } from '../../src/store/change-lag.js';
import { nearestRank, summarizeLags } from '../../src/store/lag-summary.js';
import type { SessionOutcome } from '../../src/store/merge-plan.js';
import type { RefreshTierState } from '../../src/store/sink.js';
import { auth, t } from './fixtures.js';

describe('nearestRank', () => {
  it.each([
    { values: [], p: 50, rank: null },
    { values: [7], p: 50, rank: 7 },
    { values: [7], p: 95, rank: 7 },
    { values: [1, 2, 3, 4], p: 50, rank: 2 },
    { values: [1, 2, 3, 4], p: 95, rank: 4 },
    { values: [1, 2, 3, 4], p: 100, rank: 4 },
    { values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], p: 95, rank: 10 },
    { values: Array.from({ length: 20 }, (_, i) => i + 1), p: 95, rank: 19 },
    { values: [5, 5, 5, 9], p: 50, rank: 5 },
  ])('p$p of $values is $rank', ({ values, p, rank }) => {
    expect(nearestRank(values, p)).toBe(rank);
  });
});

describe('observedChange', () => {
  const v2 = (row: Parameters<typeof auth>[1]) => auth('s', { api_version: '2', last_synced_at: t(160), ...row });
  it.each<{ name: string; outcome: SessionOutcome; session: ReturnType<typeof auth>; stored: string | null | undefined; expected: ReturnType<typeof observedChange> }>([
    { name: 'a dated change', outcome: 'changed', session: v2({ last_updated_at: t(100) }), stored: t(10), expected: { changedAt: t(100), storedAt: t(160), lagSeconds: 60 } },
    { name: 'a new session', outcome: 'inserted', session: v2({ last_updated_at: t(100) }), stored: undefined, expected: null },
    { name: 'an older observation', outcome: 'stale', session: v2({ last_updated_at: t(100) }), stored: t(200), expected: null },
    { name: 'the same content again', outcome: 'unchanged', session: v2({ last_updated_at: t(100) }), stored: t(100), expected: null },
    { name: 'the stored change in other words', outcome: 'changed', session: v2({ last_updated_at: t(100) }), stored: t(100), expected: null },
    { name: 'an undated poll', outcome: 'changed', session: auth('p', { last_synced_at: t(160) }), stored: null, expected: null },
    {
      name: 'an undated delivery: its arrival',
      outcome: 'changed',
      session: auth('d', { last_synced_at: t(160), source: 'webhook' }),
      stored: null,
      expected: { changedAt: t(160), storedAt: t(160), lagSeconds: 0 },
    },
    { name: 'a service clock ahead', outcome: 'changed', session: v2({ last_updated_at: t(170) }), stored: t(10), expected: { changedAt: t(170), storedAt: t(160), lagSeconds: 0 } },
  ])('$name', ({ outcome, session, stored, expected }) => {
    expect(observedChange(outcome, session, stored)).toEqual(expected);
  });
});

describe('refresh spending', () => {
  it.each([
    { outcomes: [], spend: undefined },
    { outcomes: [{ budget: 0, cost: 0 }], spend: undefined },
    { outcomes: [{ budget: 300, cost: 12 }, { budget: 300, cost: 0 }], spend: { budget: 600, spent: 12 } },
    { outcomes: [{ budget: 300, cost: 300 }], spend: { budget: 300, spent: 300 } },
  ])('$outcomes -> $spend', ({ outcomes, spend }) => {
    expect(refreshSpend(outcomes.map((refresh) => ({ refresh })))).toEqual(spend);
  });

  it.each([
    { spend: { budget: 600, spent: 12 }, saved: 588 },
    { spend: { budget: 300, spent: 300 }, saved: 0 },
    // Never negative: a plan never spends beyond its budget, but a budget set lower since must not read as debt.
    { spend: { budget: 10, spent: 12 }, saved: 0 },
  ])('$spend saves $saved', ({ spend, saved }) => {
    expect(refreshSaved(spend)).toBe(saved);
  });
});

describe('status lines', () => {
  const tier = (account: string, resource: 'authentications' | 'fingerprints', name: RefreshTierState['tier'], sessions: number, ages: [number, number, number]): RefreshTierState => ({
    account,
    resource,
    tier: name,
    sessions,
    p50CheckAt: t(1000 - ages[0]),
    p95CheckAt: t(1000 - ages[1]),
    oldestCheckAt: t(1000 - ages[2]),
  });
  const now = Date.parse(t(1000)) / 1000;
  const report = {
    refresh: [
      tier('a', 'authentications', 'hot', 3, [10, 20, 30]),
      tier('a', 'authentications', 'backoff', 40, [100, 500, 900]),
      tier('a', 'fingerprints', 'unchecked', 2, [700, 800, 800]),
      tier('b', 'authentications', 'backoff', 1, [50, 50, 50]),
    ],
    changeLags: [
      { account: 'a', resource: 'authentications' as const, storedAt: t(990), lagSeconds: 4 },
      { account: 'a', resource: 'authentications' as const, storedAt: t(980), lagSeconds: 300 },
    ],
  };

  it('gives one line per account and resource, its tiers side by side', () => {
    const lines = stalenessLines(report, now);
    expect(lines.map((l) => [l.account, l.resource])).toEqual([
      ['a', 'authentications'],
      ['a', 'fingerprints'],
      ['b', 'authentications'],
    ]);
    expect(lines[0]!.tiers.backoff).toEqual({ sessions: 40, checkAgeSeconds: { p50: 100, p95: 500, max: 900 } });
    expect(lines[0]!.tiers.unchecked).toBeNull();
    expect(lines[0]!.changeLag).toEqual(expect.objectContaining({ changes: 2, p50Seconds: 4, p95Seconds: 300, maxSeconds: 300, since: t(980) }));
    expect(lines[1]!.changeLag).toBeNull();
    const text = renderStaleness(lines);
    expect(text).toMatch(/a\s+│?\s*authentications.*3: 10\/20\/30.*40: 100\/500\/900.*4\.0\/300 \(2 changes\)/);
  });

  it('summarizes lags per account and resource', () => {
    expect(summarizeLags([])).toEqual([]);
    expect(summarizeLags(report.changeLags)).toEqual([
      { account: 'a', resource: 'authentications', changes: 2, since: t(980), p50Seconds: 4, p95Seconds: 300, maxSeconds: 300 },
    ]);
  });
});
