import { describe, expect, it } from 'vitest';
import { renderStaleness, stalenessLines } from '../../src/cli/staleness.js';
import { refreshSaved, refreshSpend } from '../../src/crawl/refresh/refresh-spend.js';
import { observedChange } from '../../src/store/pages/change-lag.js';
import { nearestRank, summarizeLags } from '../../src/store/runs/lag-summary.js';
import type { SessionOutcome } from '../../src/store/pages/merge-plan.js';
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
  const v2 = (updated: string) => auth('s', { api_version: '2', last_synced_at: t(160), last_updated_at: updated });
  const lag = (changed: number, stored: number, lagSeconds: number) => ({
    changedAt: t(changed),
    storedAt: t(stored),
    lagSeconds,
  });
  const delivered = auth('d', { last_synced_at: t(160), source: 'webhook' });
  type Stored = string | null | undefined;
  type Case = [name: string, outcome: SessionOutcome, session: ReturnType<typeof auth>, stored: Stored];
  it.each<[...Case, ReturnType<typeof observedChange>]>([
    ['a dated change', 'changed', v2(t(100)), t(10), lag(100, 160, 60)],
    ['a new session', 'inserted', v2(t(100)), undefined, null],
    ['an older observation', 'stale', v2(t(100)), t(200), null],
    ['the same content again', 'unchanged', v2(t(100)), t(100), null],
    ['the stored change in other words', 'changed', v2(t(100)), t(100), null],
    ['an undated poll', 'changed', auth('p', { last_synced_at: t(160) }), null, null],
    ['an undated delivery: its arrival', 'changed', delivered, null, lag(160, 160, 0)],
    ['a service clock ahead', 'changed', v2(t(170)), t(10), lag(170, 160, 0)],
  ])('%s', (_name, outcome, session, stored, expected) => {
    expect(observedChange(outcome, session, stored)).toEqual(expected);
  });
});

describe('refresh spending', () => {
  it.each([
    { outcomes: [], spend: undefined },
    { outcomes: [{ budget: 0, requests: 0 }], spend: undefined },
    {
      outcomes: [
        { budget: 300, requests: 12 },
        { budget: 300, requests: 0 },
      ],
      spend: { budget: 600, spent: 12 },
    },
    { outcomes: [{ budget: 300, requests: 300 }], spend: { budget: 300, spent: 300 } },
    // Retries and a part holding more than its estimate: what was sent, past the budget too.
    { outcomes: [{ budget: 300, requests: 303 }], spend: { budget: 300, spent: 303 } },
  ])('$outcomes -> $spend', ({ outcomes, spend }) => {
    expect(refreshSpend(outcomes.map((refresh) => ({ refresh })))).toEqual(spend);
  });

  it.each([
    { spend: { budget: 600, spent: 12 }, saved: 588 },
    { spend: { budget: 300, spent: 300 }, saved: 0 },
    // Never negative: retries can send past the budget, and a budget set lower since must not read as debt.
    { spend: { budget: 10, spent: 12 }, saved: 0 },
  ])('$spend saves $saved', ({ spend, saved }) => {
    expect(refreshSaved(spend)).toBe(saved);
  });
});

describe('status lines', () => {
  type Resource = RefreshTierState['resource'];
  type Tier = RefreshTierState['tier'];
  const tier = (account: string, resource: Resource, name: Tier, sessions: number, ages: number[]) => ({
    account,
    resource,
    tier: name,
    sessions,
    p50CheckAt: t(1000 - ages[0]!),
    p95CheckAt: t(1000 - ages[1]!),
    oldestCheckAt: t(1000 - ages[2]!),
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
    const lag = { changes: 2, p50Seconds: 4, p95Seconds: 300, maxSeconds: 300, since: t(980) };
    expect(lines[0]!.changeLag).toEqual(expect.objectContaining(lag));
    expect(lines[1]!.changeLag).toBeNull();
    const text = renderStaleness(lines);
    expect(text).toMatch(/a\s+│?\s*authentications.*3: 10\/20\/30.*40: 100\/500\/900.*4\.0\/300 \(2 changes\)/);
  });

  it('summarizes lags per account and resource', () => {
    expect(summarizeLags([])).toEqual([]);
    expect(summarizeLags(report.changeLags)).toEqual([
      {
        account: 'a',
        resource: 'authentications',
        changes: 2,
        since: t(980),
        p50Seconds: 4,
        p95Seconds: 300,
        maxSeconds: 300,
      },
    ]);
  });
});
