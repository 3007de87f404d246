import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/crawl/verify/request-budget.js';
import { diffWindow, type DiffInput } from '../../src/crawl/verify/verify-diff.js';
import { planSample, type SampleCandidate } from '../../src/crawl/verify/verify-sample.js';
import type { NormalizedSession } from '../../src/normalize/rows.js';
import { planMerge, type StoredSession } from '../../src/store/pages/merge-plan.js';
import { auth, fp, t } from '../store/fixtures.js';

/** `n` windows of a week each, every one costing `cost` requests. */
function windows(n: number, cost = 1): SampleCandidate[] {
  return Array.from({ length: n }, (_, i) => ({ id: `w${i}`, start: i * 604_800, cost }));
}

describe('planSample', () => {
  it('the same seed picks the same windows, whatever the list order; another seed others', () => {
    const list = windows(40);
    const a = planSample(list, 8, 'x').map((p) => p.candidate.id);
    expect(planSample([...list].reverse(), 8, 'x').map((p) => p.candidate.id)).toEqual(a);
    expect(planSample(list, 8, 'y').map((p) => p.candidate.id)).not.toEqual(a);
  });

  it('spreads a small sample over the whole history: one window from each stratum of time', () => {
    for (const seed of ['1', '2', '3', 'abc']) {
      const picks = planSample(windows(100), 10, seed);
      expect(picks).toHaveLength(10);
      // Ten strata of ten consecutive windows: one pick in each.
      expect(picks.map((p) => Math.floor(Number(p.candidate.id.slice(1)) / 10))).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);
    }
  });

  const cases: Array<{
    name: string;
    list: SampleCandidate[];
    budget: number;
    picks: number;
    spent: number;
    partial: boolean;
  }> = [
    {
      name: 'a budget that covers the history takes every window',
      list: windows(12, 2),
      budget: 100,
      picks: 12,
      spent: 24,
      partial: false,
    },
    { name: 'never more than the budget', list: windows(30, 3), budget: 20, picks: 6, spent: 18, partial: false },
    {
      name: 'uneven costs: fills what is left with windows that still fit',
      list: [...windows(5, 4), { id: 'small', start: 9e6, cost: 1 }],
      budget: 9,
      picks: 3,
      spent: 9,
      partial: false,
    },
    {
      name: 'no window fits: one is picked partial with the whole budget',
      list: windows(3, 10),
      budget: 4,
      picks: 1,
      spent: 4,
      partial: true,
    },
    { name: 'nothing stored', list: [], budget: 100, picks: 0, spent: 0, partial: false },
    { name: 'a budget below one request', list: windows(3), budget: 0, picks: 0, spent: 0, partial: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const picks = planSample(c.list, c.budget, 'seed');
      expect(picks).toHaveLength(c.picks);
      expect(picks.reduce((n, p) => n + p.allowance, 0)).toBe(c.spent);
      expect(picks.some((p) => p.partial)).toBe(c.partial);
      const starts = picks.map((p) => p.candidate.start);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
    });
  }
});

describe('RequestBudget', () => {
  it('pages within a share freely, beyond it only from what nobody reserved, never past the limit', () => {
    const tally = { requests: 0 };
    const budget = new RequestBudget(5, tally);
    const a = budget.share(2);
    const b = budget.share(2);
    const takes = (share: typeof a, n: number) =>
      Array.from({ length: n }, () => budget.take(share)).filter(Boolean).length;
    expect(takes(a, 4)).toBe(3); // its 2, and the one nobody reserved
    expect(takes(b, 3)).toBe(2); // its own 2 are still there
    expect(budget.take(a)).toBe(false);
  });

  it('gives back what a finished window did not use', () => {
    const budget = new RequestBudget(4, { requests: 0 });
    const a = budget.share(2);
    const b = budget.share(2);
    expect(budget.take(a)).toBe(true);
    budget.release(a);
    expect([budget.take(b), budget.take(b), budget.take(b), budget.take(b)]).toEqual([true, true, true, false]);
  });

  it('stops once the tally (retries included) reached the limit', () => {
    const tally = { requests: 0 };
    const budget = new RequestBudget(3, tally);
    const a = budget.share(3);
    expect(budget.take(a)).toBe(true);
    tally.requests = 3; // the first page took three attempts
    expect(budget.take(a)).toBe(false);
  });
});

const stored = (session: NormalizedSession, over: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...session.row,
  ...over,
});

function input(over: Partial<DiffInput>): DiffInput {
  return {
    account: 'default',
    resource: 'authentications',
    windowStart: 0,
    from: 0,
    to: 10_000,
    returned: [],
    stored: [],
    complete: true,
    pagedSince: t(100),
    ...over,
  };
}

describe('diffWindow', () => {
  const a = auth('a', { last_synced_at: t(200) });
  const kinds = (d: ReturnType<typeof diffWindow>) =>
    d.findings.map(
      (f) => `${f.kind} ${f.serviceId} ${f.column ?? '-'} ${f.storedValue ?? '-'} ${f.serviceValue ?? '-'}`,
    );

  const cases: Array<{ name: string; input: Partial<DiffInput>; findings: string[]; checked: number }> = [
    {
      name: 'the same on both sides',
      input: { returned: [a], stored: [stored(a, { last_synced_at: t(5) })] },
      findings: [],
      checked: 1,
    },
    { name: 'returned, not stored', input: { returned: [a] }, findings: ['missing_locally a - - -'], checked: 1 },
    {
      name: 'returned, stored as missing',
      input: { returned: [a], stored: [stored(a, { last_synced_at: t(5), missing_since: t(6) })] },
      findings: [`missing_locally a missing_since ${t(6)} -`],
      checked: 1,
    },
    {
      name: 'a typed column differs',
      input: { returned: [a], stored: [stored(a, { last_synced_at: t(5), result_id: 'x', result_final: false })] },
      findings: ['changed a result_id x authentic', 'changed a result_final false true'],
      checked: 1,
    },
    {
      name: 'display strings and bookkeeping are not compared',
      input: {
        returned: [a],
        stored: [stored(a, { last_synced_at: t(5), result_display: 'X', source: 'webhook', raw: '{}' })],
      },
      findings: [],
      checked: 1,
    },
    {
      name: 'a stored row newer by webhook counter is not drift',
      input: {
        returned: [auth('a', { update_counter: 3, last_synced_at: t(200) })],
        stored: [stored(a, { update_counter: 4, flag: 'new', last_synced_at: t(5) })],
      },
      findings: [],
      checked: 1,
    },
    {
      name: 'a stored row with a later v2 last_updated_at is not drift',
      input: {
        returned: [auth('a', { last_updated_at: t(50), last_synced_at: t(200) })],
        stored: [stored(a, { last_updated_at: t(60), flag: 'new', last_synced_at: t(5) })],
      },
      findings: [],
      checked: 1,
    },
    {
      name: 'stored, no longer returned',
      input: { stored: [stored(a, { last_synced_at: t(5) })] },
      findings: ['not_returned a - - -'],
      checked: 1,
    },
    {
      name: 'no longer returned, but seen since the pages were asked for (a webhook)',
      input: { stored: [stored(a, { last_synced_at: t(150) })] },
      findings: [],
      checked: 1,
    },
    {
      name: 'no longer returned and marked missing already',
      input: { stored: [stored(a, { last_synced_at: t(5), missing_since: t(6) })] },
      findings: [],
      checked: 0,
    },
    {
      name: 'a partial pass does not look for sessions no longer returned',
      input: { complete: false, stored: [stored(a, { last_synced_at: t(5) })] },
      findings: [],
      checked: 0,
    },
    {
      name: 'a returned session outside the window belongs to its neighbour',
      input: { returned: [auth('edge', { created_epoch: 10_000 })] },
      findings: [],
      checked: 0,
    },
    {
      name: 'a row of the other interface is compared on the columns both fill alike',
      input: {
        returned: [
          auth('a', { api_version: '2', result_id: 'verified', organization_name: null, last_synced_at: t(200) }),
        ],
        stored: [stored(a, { last_synced_at: t(5) })],
      },
      findings: [],
      checked: 1,
    },
    {
      name: 'a column the observation cannot know is kept, not compared',
      input: {
        resource: 'fingerprints',
        returned: [fp('f', { parent_service_id: null, last_synced_at: t(200) }, { preserve: ['parent_service_id'] })],
        stored: [stored(fp('f', { parent_service_id: 'p' }), { last_synced_at: t(5) })],
      },
      findings: [],
      checked: 1,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const diff = diffWindow(input(c.input));
      expect(kinds(diff)).toEqual(c.findings);
      expect(diff.sessionsChecked).toBe(c.checked);
    });
  }

  it('hands a repair the fresh observations of what drifted, and the ids to rewrite and to mark', () => {
    const b = auth('b', { last_synced_at: t(200) });
    const c = auth('c', { last_synced_at: t(200) });
    const diff = diffWindow(
      input({
        returned: [a, b, c],
        stored: [
          stored(b, { last_synced_at: t(5), flag: 'x' }),
          stored(c, { last_synced_at: t(5) }),
          stored(auth('gone'), { last_synced_at: t(5) }),
        ],
      }),
    );
    expect(diff.drifted.map((s) => s.row.service_id)).toEqual(['a', 'b']);
    expect([...diff.changed]).toEqual(['b']);
    expect(diff.notReturned).toEqual(['gone']);
  });
});

describe('planMerge with rewrite (verify --repair)', () => {
  const storedRow = (s: NormalizedSession): StoredSession => ({
    account: s.row.account,
    result_id: s.row.result_id,
    result_final: s.row.result_final,
    flag: s.row.flag,
    update_counter: null,
    last_updated_at: null,
    last_synced_at: t(5),
    first_seen_at: t(1),
    missing_since: null,
    raw: s.row.raw,
    api_version: '1.4',
    created_at: s.row.created_at,
    source: s.row.source,
    preserved: {},
  });
  const none = { authentications: new Map<string, StoredSession>(), fingerprints: new Map<string, StoredSession>() };

  it(
    'rewrites a row whose item text is unchanged when asked ' + 'to, and only then; an older observation still loses',
    () => {
      const fresh = auth('a', { last_synced_at: t(9) });
      const stored = { ...none, authentications: new Map([['a', storedRow(fresh)]]) };
      expect(planMerge([fresh], stored).outcomes).toEqual(['unchanged']);
      const plan = planMerge([fresh], stored, { rewrite: new Set(['a']) });
      expect(plan.outcomes).toEqual(['changed']);
      expect(plan.rows.authentications[0]).toMatchObject({
        service_id: 'a',
        first_seen_at: t(1),
        result_id: 'authentic',
      });
      const older = auth('a', { last_synced_at: t(2) });
      expect(
        planMerge(
          [older],
          { ...none, authentications: new Map([['a', storedRow(older)]]) },
          { rewrite: new Set(['a']) },
        ).outcomes,
      ).toEqual(['stale']);
    },
  );
});
