import { describe, expect, it } from 'vitest';
import {
  coveredByWebhooks,
  dueStaleness,
  intervalInEffect,
  nextInterval,
  tierOf,
  type RefreshPolicy,
} from '../../src/crawl/refresh/refresh-policy.js';
import { planCounted, planRefresh, poolSize, RefreshPlanner } from '../../src/crawl/refresh/refresh-planner.js';
import { refreshBudget, refreshParts, webhookStreamState, WHOLE } from '../../src/crawl/refresh/refresh-settings.js';
import type { RefreshCandidate } from '../../src/store/sink.js';
import { windowState } from './window-state.js';

const NOW = 10_000;
const POLICY: RefreshPolicy = {
  hotSeconds: 1000,
  runSeconds: 100,
  maxIntervalSeconds: 800,
  maxRequests: 1000,
  webhooksHealthy: false,
};

function c(serviceId: string, createdEpoch: number | null, patch: Partial<RefreshCandidate> = {}): RefreshCandidate {
  return {
    serviceId,
    createdEpoch,
    checkedAt: null,
    seenAt: null,
    intervalSeconds: null,
    deliveredSinceCheck: false,
    tier: null,
    ...patch,
  };
}

const done = (start: number, end: number, items: number) =>
  windowState(start, end, { status: 'done', items, pages: Math.ceil(items / 25), syncedTo: end });

describe('tierOf', () => {
  it.each([
    { name: 'young: hot', candidate: c('a', NOW - 10), healthy: false, tier: 'hot' },
    { name: 'old: backoff', candidate: c('a', NOW - 5000), healthy: false, tier: 'backoff' },
    { name: 'no creation time: backoff', candidate: c('a', null), healthy: false, tier: 'backoff' },
    {
      name: 'young, delivered after its poll, stream healthy: backoff',
      candidate: c('a', NOW - 10, { deliveredSinceCheck: true }),
      healthy: true,
      tier: 'backoff',
    },
    {
      name: 'young, delivered, stream quiet: hot again',
      candidate: c('a', NOW - 10, { deliveredSinceCheck: true }),
      healthy: false,
      tier: 'hot',
    },
    { name: 'young, not delivered, stream healthy: hot', candidate: c('a', NOW - 10), healthy: true, tier: 'hot' },
    {
      name: 'young, put on back-off by a delivery, polled since, stream healthy: still backoff',
      candidate: c('a', NOW - 10, { tier: 'backoff' }),
      healthy: true,
      tier: 'backoff',
    },
    {
      name: 'young, put on back-off by a delivery, stream quiet: hot',
      candidate: c('a', NOW - 10, { tier: 'backoff' }),
      healthy: false,
      tier: 'hot',
    },
  ])('$name', ({ candidate, healthy, tier }) => {
    expect(tierOf(candidate, NOW, { ...POLICY, webhooksHealthy: healthy })).toBe(tier);
  });
});

describe('dueStaleness', () => {
  const healthy = { ...POLICY, webhooksHealthy: true };
  it.each([
    { name: 'never seen: stalest of all', candidate: c('a', 0), tier: 'hot' as const, policy: POLICY, stale: Infinity },
    {
      name: 'hot: due, stale by the time since its check',
      candidate: c('a', 0, { checkedAt: NOW - 100 }),
      tier: 'hot' as const,
      policy: POLICY,
      stale: 100,
    },
    {
      name: 'old, checked a moment ago: still due (the budget decides)',
      candidate: c('a', 0, { checkedAt: NOW - 10, intervalSeconds: 800 }),
      tier: 'backoff' as const,
      policy: POLICY,
      stale: 10,
    },
    {
      name: 'stored by a backfill just now: due',
      candidate: c('a', 0, { seenAt: NOW }),
      tier: 'backoff' as const,
      policy: POLICY,
      stale: 0,
    },
    {
      name: 'the staleness counts from the last poll, whatever was seen since',
      candidate: c('a', 0, { checkedAt: NOW - 900, seenAt: NOW - 50 }),
      tier: 'backoff' as const,
      policy: POLICY,
      stale: 900,
    },
    {
      name: 'covered by a healthy stream, inside its back-off: not due',
      candidate: c('a', 0, { checkedAt: NOW - 100, intervalSeconds: 400, deliveredSinceCheck: true }),
      tier: 'backoff' as const,
      policy: healthy,
      stale: null,
    },
    {
      name: 'covered, at its back-off: due',
      candidate: c('a', 0, { checkedAt: NOW - 400, intervalSeconds: 400, deliveredSinceCheck: true }),
      tier: 'backoff' as const,
      policy: healthy,
      stale: 400,
    },
    {
      name: 'covered, less than half a run early: due (runs start unevenly)',
      candidate: c('a', 0, { checkedAt: NOW - 360, intervalSeconds: 400, deliveredSinceCheck: true }),
      tier: 'backoff' as const,
      policy: healthy,
      stale: 360,
    },
    {
      name: 'delivered, but the stream is quiet: due',
      candidate: c('a', 0, { checkedAt: NOW - 100, intervalSeconds: 400, deliveredSinceCheck: true }),
      tier: 'backoff' as const,
      policy: POLICY,
      stale: 100,
    },
  ])('$name', ({ candidate, tier, policy, stale }) => {
    expect(dueStaleness(candidate, tier, NOW, policy)).toBe(stale);
  });
});

describe('coveredByWebhooks', () => {
  it.each([
    {
      name: 'delivered since its check, stream healthy',
      candidate: c('a', 0, { deliveredSinceCheck: true }),
      healthy: true,
      covered: true,
    },
    {
      name: 'young, put on back-off by a delivery, stream healthy',
      candidate: c('a', NOW - 10, { tier: 'backoff' }),
      healthy: true,
      covered: true,
    },
    {
      name: 'delivered, stream quiet',
      candidate: c('a', 0, { deliveredSinceCheck: true }),
      healthy: false,
      covered: false,
    },
    { name: 'old, never delivered, stream healthy', candidate: c('a', 0), healthy: true, covered: false },
    { name: 'young, never delivered, stream healthy', candidate: c('a', NOW - 10), healthy: true, covered: false },
  ])('$name', ({ candidate, healthy, covered }) => {
    const policy = { ...POLICY, webhooksHealthy: healthy };
    expect(coveredByWebhooks(candidate, tierOf(candidate, NOW, policy), policy)).toBe(covered);
  });
});

describe('intervalInEffect', () => {
  it.each([
    { name: 'hot: none', candidate: c('a', NOW - 10, { seenAt: NOW }), tier: 'hot' as const, interval: 0 },
    {
      name: 'polled: the interval its check set',
      candidate: c('a', 5000, { checkedAt: NOW, intervalSeconds: 400 }),
      tier: 'backoff' as const,
      interval: 400,
    },
    {
      name: 'polled: at least one run',
      candidate: c('a', 5000, { checkedAt: NOW, intervalSeconds: 10 }),
      tier: 'backoff' as const,
      interval: 100,
    },
    {
      name: 'never polled, no longer young: the longest (so a check doubles nothing)',
      candidate: c('a', 5000, { seenAt: NOW }),
      tier: 'backoff' as const,
      interval: 800,
    },
    {
      name: 'never polled, no creation time: one run',
      candidate: c('a', null, { seenAt: NOW }),
      tier: 'backoff' as const,
      interval: 100,
    },
    {
      name: 'never polled, young, on back-off behind the webhook stream: one run',
      candidate: c('a', NOW - 10, { seenAt: NOW, deliveredSinceCheck: true }),
      tier: 'backoff' as const,
      interval: 100,
    },
  ])('$name', ({ candidate, tier, interval }) => {
    expect(intervalInEffect(candidate, tier, NOW, POLICY)).toBe(interval);
  });
});

describe('nextInterval', () => {
  it.each([
    { name: 'hot: one run', previous: 400, tier: 'hot' as const, changed: false, next: 100 },
    { name: 'first back-off: one run', previous: null, tier: 'backoff' as const, changed: false, next: 100 },
    { name: 'unchanged: doubled', previous: 100, tier: 'backoff' as const, changed: false, next: 200 },
    {
      name: 'unchanged: doubled up to the longest',
      previous: 600,
      tier: 'backoff' as const,
      changed: false,
      next: 800,
    },
    { name: 'a change resets it', previous: 800, tier: 'backoff' as const, changed: true, next: 100 },
  ])('$name', ({ previous, tier, changed, next }) => {
    expect(nextInterval(previous, tier, changed, POLICY)).toBe(next);
  });
});

describe('planRefresh', () => {
  const windows = [done(0, 100, 100), done(100, 200, 2000), done(200, 300, 30)];
  const old = (n: number, epoch: number) => Array.from({ length: n }, (_, i) => c(`s${epoch}-${i}`, epoch));
  /** n sessions spread evenly over [from, to]. */
  const spread = (n: number, from: number, to: number) =>
    Array.from({ length: n }, (_, i) => c(`s${i}`, from + ((to - from) * i) / Math.max(1, n - 1)));

  it.each([
    // [due sessions in window 0 (100 items = 4 pages), expect repage?]
    [3, false],
    [4, false],
    [5, true],
  ])('%s due sessions spread over a 4-page window: repage = %s', (n, repage) => {
    const plan = planRefresh(spread(n, 0, 99), windows, [], NOW, POLICY);
    expect(plan.repage.length > 0).toBe(repage);
    expect(plan.cost).toBe(repage ? 4 : n);
    expect(plan.naiveCost).toBe(n);
    expect(plan.checked.size).toBe(n);
  });
  it('GETs sessions outside any window and skips those this run already passed', () => {
    const plan = planRefresh([...old(2, 5000), ...old(3, 250)], windows, [[200, 300]], NOW, POLICY);
    expect(plan.get).toEqual(['s5000-0', 's5000-1']);
    expect(plan.naiveCost).toBe(2);
    expect(plan.seenByPass).toEqual([]);
  });
  it('counts a hot session the run already passed as checked by that pass', () => {
    const young = c('young', NOW - 10, { seenAt: NOW });
    const plan = planRefresh(
      [young, ...old(1, 250)],
      windows,
      [
        [200, 300],
        [NOW - 100, NOW],
      ],
      NOW,
      POLICY,
    );
    expect([plan.seenByPass, plan.get, plan.due]).toEqual([['young'], [], 0]);
  });
  it('prefers GETs in a dense window', () => {
    const plan = planRefresh(spread(10, 100, 199), windows, [], NOW, POLICY);
    expect(plan.repage).toEqual([]);
    expect(plan.get).toHaveLength(10);
  });
  it('pages again only the part of a window its due sessions lie in', () => {
    // 2,000 items over 100 s: 20 a second. Six due sessions within 3 s of each other: 60 items, 3 pages, not 80.
    const plan = planRefresh(spread(6, 150, 152), windows, [], NOW, POLICY);
    expect(plan.repage.map((t) => [t.window.windowStart, t.passFrom, t.passTo])).toEqual([[100, 150, 153]]);
    expect([plan.cost, plan.get, plan.checked.size]).toEqual([3, [], 6]);
    // Only the non-final sessions inside the part count as checked by it.
    // (One not due: the healthy webhook stream covers it and its back-off is not over.)
    const outside = c('outside', 190, { checkedAt: NOW - 10, intervalSeconds: 400, deliveredSinceCheck: true });
    const covered = planRefresh([...spread(6, 150, 152), outside], windows, [], NOW, {
      ...POLICY,
      webhooksHealthy: true,
    });
    expect(covered.checked.has('outside')).toBe(false);
    // Window bounds are whole seconds (an integer column on Postgres): so is the part's range.
    expect(
      planRefresh(spread(6, 150.4, 152.7), windows, [], NOW, POLICY).repage.map((t) => [t.passFrom, t.passTo]),
    ).toEqual([[150, 153]]);
  });
  it('pages a window whose last pass did not complete in full', () => {
    const running = [windowState(100, 200, { status: 'running', items: 2000, pages: 80 })];
    const plan = planRefresh(old(100, 150), running, [], NOW, POLICY);
    expect(plan.repage.map((t) => [t.passFrom, t.passTo])).toEqual([[100, 200]]);
    expect(plan.cost).toBe(80);
  });
  it('checks every non-final session when that fits the budget, however recently each was checked', () => {
    const recent = c('recent', 50, { checkedAt: NOW - 10, intervalSeconds: 800 });
    const stored = c('stored', 60, { seenAt: NOW - 1 });
    const plan = planRefresh([recent, stored], windows, [], NOW, POLICY);
    expect([...plan.checked.keys()].sort()).toEqual(['recent', 'stored']);
    expect([plan.due, plan.deferred]).toEqual([2, 0]);
  });
  it('holds only the most urgent due sessions of a long history and counts the rest', () => {
    // 20,000 due sessions outside any window (a GET each), stalest first by index; 10 requests a run.
    const many = Array.from({ length: 20_000 }, (_, i) => c(`m${i}`, 5000, { seenAt: 100 + ((i * 7919) % 20_000) }));
    const policy = { ...POLICY, maxRequests: 10 };
    const planner = new RefreshPlanner(windows, [], NOW, policy);
    many.forEach((x) => planner.add(x));
    expect(planner.held).toBeLessThan(2 * poolSize(10));
    expect(poolSize(10)).toBeLessThan(many.length / 2);
    const plan = planner.plan();
    const stalest = [...many].sort((a, b) => a.seenAt! - b.seenAt!).slice(0, 10);
    expect(plan.get.sort()).toEqual(stalest.map((x) => x.serviceId).sort());
    expect([plan.due, plan.naiveCost, plan.deferred, plan.cost]).toEqual([20_000, 20_000, 19_990, 10]);
  });
  it('a repaged part checks the non-final sessions in it the planner did not hold', () => {
    // Six due sessions over the 4-page window 0 are paged again; one inside it rests on its back-off (not due).
    const resting = c('rest', 50, { checkedAt: NOW - 10, intervalSeconds: 400, deliveredSinceCheck: true });
    const plan = planRefresh([...spread(6, 0, 99), resting], windows, [], NOW, { ...POLICY, webhooksHealthy: true });
    expect(plan.repage.map((t) => [t.passFrom, t.passTo])).toEqual([[0, 100]]);
    expect(plan.checked.get('rest')).toEqual({ tier: 'backoff', interval: 400 });
    expect([plan.checked.size, plan.due, plan.deferred]).toEqual([7, 6, 0]);
  });
  it('leaves a session the healthy webhook stream covers to its back-off', () => {
    const resting = c('rest', 50, { checkedAt: NOW - 100, intervalSeconds: 400, deliveredSinceCheck: true });
    const due = c('due', 60, { checkedAt: NOW - 500, intervalSeconds: 400, deliveredSinceCheck: true });
    const plan = planRefresh([resting, due], windows, [], NOW, { ...POLICY, webhooksHealthy: true });
    expect(plan.get).toEqual(['due']);
    expect(plan.due).toBe(1);
  });
  it('spends at most the budget: hot sessions first, then the stalest, the youngest first among equals', () => {
    // Dense windows (25 items a second): a GET each is cheaper than paging the seconds between two of them.
    const sparse = Array.from({ length: 10 }, (_, i) => done(i * 1000, (i + 1) * 1000, 25_000));
    const candidates = [
      c('hot-late', NOW - 20, { checkedAt: NOW - 300 }),
      c('hot', NOW - 10, { checkedAt: NOW - 100 }),
      c('never-old', 1500),
      c('never-young', 7500),
      c('checked-long-ago', 3500, { checkedAt: NOW - 450, intervalSeconds: 400 }),
      c('checked-lately', 3600, { checkedAt: NOW - 100, intervalSeconds: 400 }),
    ];
    const plan = planRefresh(candidates, sparse, [], NOW, { ...POLICY, maxRequests: 3 });
    expect(plan.get).toEqual(['hot-late', 'hot', 'never-young']);
    expect(plan.cost).toBe(3);
    expect([plan.due, plan.deferred]).toEqual([6, 3]);
    const more = planRefresh(candidates, sparse, [], NOW, { ...POLICY, maxRequests: 5 });
    expect(more.get).toEqual(['hot-late', 'hot', 'never-young', 'never-old', 'checked-long-ago']);
  });
  it('passes over what does not fit for what does: the budget is spent whole', () => {
    // Window 0: 100 items (4 pages) holding 6 due sessions, and one lone session elsewhere.
    const plan = planRefresh([...spread(6, 0, 99), c('lone', 5000)], windows, [], NOW, { ...POLICY, maxRequests: 5 });
    expect(plan.cost).toBe(5);
    expect(plan.checked.size).toBe(7);
  });
  it('pages a window again within the budget when that checks more than GETs could', () => {
    const plan = planRefresh(spread(6, 0, 99), windows, [], NOW, { ...POLICY, maxRequests: 4 });
    expect(plan.repage.map((t) => t.window.windowStart)).toEqual([0]);
    expect([plan.cost, plan.deferred, plan.checked.size]).toEqual([4, 0, 6]);
  });
  it('a history the budget cannot check at once is checked round by round, the stalest first, none left behind', () => {
    // 400 old sessions stored by one pass at NOW over ten dense windows (a GET each), 50 requests a run:
    // every run spends the budget, and no session's last observation gets older than 8 runs.
    const history = Array.from({ length: 10 }, (_, i) => done(i * 100, (i + 1) * 100, 100_000));
    const state = new Map(Array.from({ length: 400 }, (_, i) => [`s${i}`, c(`s${i}`, i / 4, { seenAt: NOW })]));
    const policy = { ...POLICY, hotSeconds: 1, maxRequests: 50 };
    let worst = 0;
    for (let run = 1; run <= 40; run++) {
      const now = NOW + run * 100;
      const plan = planRefresh(state.values(), history, [], now, policy);
      expect(plan.cost).toBe(50);
      for (const id of plan.checked.keys())
        state.set(id, { ...state.get(id)!, checkedAt: now, tier: 'backoff', intervalSeconds: 100 });
      worst = Math.max(worst, ...[...state.values()].map((x) => now - (x.checkedAt ?? x.seenAt!)));
    }
    expect(worst).toBeLessThanOrEqual(8 * 100);
  });
  it("counts a part's pages from the stored sessions where the last pass's density is wrong for it", async () => {
    // A history that starts late in its first window: 1,000 sessions in its last 100 s, a density of 1 a second
    // over the window's 1,000. Ten due sessions in those 100 s: the estimate is 4 pages, the count 40.
    const late = done(0, 1000, 1000);
    const stored = Float64Array.from({ length: 1000 }, (_, i) => 900 + i / 10);
    const due = Array.from({ length: 10 }, (_, i) => c(`d${i}`, 900 + i * 10));
    const policy = { ...POLICY, maxRequests: 12 };
    const guessed = planRefresh(due, [late], [], NOW, policy);
    expect(guessed.repage.map((t) => t.pages)).toEqual([4]);
    const planner = new RefreshPlanner([late], [], NOW, policy);
    due.forEach((d) => planner.add(d));
    const reads: number[] = [];
    const counted = await planCounted(planner, async (w) => {
      reads.push(w.windowStart);
      return stored;
    });
    expect(reads).toEqual([0]);
    // Paging costs more than the GETs now: ten GETs, within the 12.
    expect([counted.repage, counted.get.length, counted.cost]).toEqual([[], 10, 10]);
    // Room for some of a dear part: the budget holds, and the stalest first.
    const tight = new RefreshPlanner([late], [], NOW, { ...policy, maxRequests: 5 });
    due.forEach((d) => tight.add(d));
    const plan = await planCounted(tight, async () => stored);
    expect(plan.cost).toBeLessThanOrEqual(5);
    expect(plan.checked.size).toBeGreaterThanOrEqual(5);
  });
  it('pages only windows it has counted once the rounds are over', async () => {
    // Each read finds a window four times as full as its last pass said: every round's plan reaches new windows.
    const windows = Array.from({ length: 8 }, (_, i) => done(i * 100, (i + 1) * 100, 100));
    const due = windows.flatMap((w) => spread(10, w.windowStart, w.windowStart + 99));
    const planner = new RefreshPlanner(windows, [], NOW, { ...POLICY, maxRequests: 24 });
    due.forEach((d) => planner.add(d));
    let reads = 0;
    const plan = await planCounted(planner, async (w) => {
      reads++;
      return Float64Array.from({ length: 400 }, (_, i) => w.windowStart + i / 4);
    });
    expect(plan.repage.every((t) => planner.knows(t.window))).toBe(true);
    expect(plan.cost).toBeLessThanOrEqual(24);
    expect(plan.cost).toBe(plan.get.length + plan.repage.reduce((n, t) => n + t.pages, 0));
    expect(reads).toBeLessThanOrEqual(windows.length);
  });
  it('a young session the healthy webhook stream delivered waits for its back-off', () => {
    const delivered = c('d', NOW - 10, {
      checkedAt: NOW - 100,
      seenAt: NOW - 20,
      intervalSeconds: 400,
      deliveredSinceCheck: true,
    });
    expect(planRefresh([delivered], windows, [], NOW, { ...POLICY, webhooksHealthy: true }).get).toEqual([]);
    expect(planRefresh([delivered], windows, [], NOW, POLICY).get).toEqual(['d']);
  });
});

describe('webhookStreamState', () => {
  const at = (secondsAgo: number) => new Date((NOW - secondsAgo) * 1000).toISOString();
  it.each([
    {
      name: 'no secret: polls by age',
      configured: false,
      last: at(10),
      healthy: false,
      detail: /^no webhook secret configured/,
    },
    {
      name: 'a delivery within healthySeconds: healthy',
      configured: true,
      last: at(100),
      healthy: true,
      detail: /^healthy: last delivery 100 s ago/,
    },
    {
      name: 'quiet for longer: polls the non-final sessions',
      configured: true,
      last: at(1200),
      healthy: false,
      detail: /^quiet: last delivery 1200 s ago \(over 900 s\); sync polls the 7 non-final/,
    },
    {
      name: 'never a delivery',
      configured: true,
      last: null,
      healthy: false,
      detail: /^no delivery received yet; sync polls the 7/,
    },
  ])('$name', ({ configured, last, healthy, detail }) => {
    const state = webhookStreamState({ configured, healthySeconds: 900 }, last, 7, NOW);
    expect(state.healthy).toBe(healthy);
    expect(state.detail).toMatch(detail);
  });
});

describe('refreshBudget', () => {
  const share = { budgetShare: 0.1, maxRequestsPerRun: undefined, runSeconds: 300 };
  it.each([
    {
      name: 'a tenth of what the bucket allows between two runs',
      settings: share,
      run: { rate: 10, part: WHOLE, passRequests: 0 },
      budget: 300,
    },
    {
      name: 'less what the pass spent',
      settings: share,
      run: { rate: 10, part: WHOLE, passRequests: 110 },
      budget: 190,
    },
    {
      name: "a resource's part of what the account's passes left",
      settings: share,
      run: { rate: 10, part: { from: 0, to: 0.5 }, passRequests: 10 },
      budget: 145,
    },
    {
      name: 'parts that add up to what the passes left',
      settings: share,
      run: { rate: 10, part: { from: 0.7, to: 1 }, passRequests: 110 },
      budget: 57,
    },
    {
      name: 'nothing when the pass spent it all',
      settings: share,
      run: { rate: 10, part: WHOLE, passRequests: 400 },
      budget: 0,
    },
    {
      name: 'set in requests: the refresh budget itself, only split',
      settings: { ...share, maxRequestsPerRun: 600 },
      run: { rate: 10, part: { from: 0.5, to: 1 }, passRequests: 400 },
      budget: 300,
    },
  ])('$name', ({ settings, run, budget }) => {
    expect(refreshBudget(settings, run)).toBe(budget);
  });

  it('splits an account budget over its resources by their non-final sessions, none left out', () => {
    const requests = (max: number, nonFinal: number[]) =>
      refreshParts(nonFinal).map((part) =>
        refreshBudget({ ...share, maxRequestsPerRun: max }, { rate: 10, part, passRequests: 0 }),
      );
    expect(requests(8, [0, 0])).toEqual([4, 4]);
    expect(requests(10, [69, 29])).toEqual([7, 3]);
    // Whole requests that add up to the budget, whatever the fractions.
    expect(requests(8, [69, 29])).toEqual([5, 3]);
    expect(requests(7, [1, 1, 1])).toEqual([2, 2, 3]);
    // A resource with none is not left out: a budget set in requests gives each resource one at least.
    expect(requests(300, [0, 998])).toEqual([1, 300]);
    expect(refreshParts([5])).toEqual([WHOLE]);
  });
});
