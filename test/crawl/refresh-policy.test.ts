import { describe, expect, it } from 'vitest';
import { firstCheckDelay, intervalInEffect, nextInterval, overdueSeconds, planRefresh, tierOf, type RefreshPolicy } from '../../src/crawl/refresh-policy.js';
import { defaultRefreshBudget, webhookStreamState } from '../../src/crawl/refresh-settings.js';
import type { RefreshCandidate } from '../../src/store/sink.js';
import { windowState } from './window-state.js';

const NOW = 10_000;
const POLICY: RefreshPolicy = { hotSeconds: 1000, runSeconds: 100, maxIntervalSeconds: 800, maxRequests: 1000, webhooksHealthy: false };

function c(serviceId: string, createdEpoch: number | null, patch: Partial<RefreshCandidate> = {}): RefreshCandidate {
  return { serviceId, createdEpoch, checkedAt: null, seenAt: null, intervalSeconds: null, deliveredSinceCheck: false, tier: null, ...patch };
}

const done = (start: number, end: number, items: number) => windowState(start, end, { status: 'done', items, pages: Math.ceil(items / 25), syncedTo: end });

describe('tierOf', () => {
  it.each([
    { name: 'young: hot', candidate: c('a', NOW - 10), healthy: false, tier: 'hot' },
    { name: 'old: backoff', candidate: c('a', NOW - 5000), healthy: false, tier: 'backoff' },
    { name: 'no creation time: backoff', candidate: c('a', null), healthy: false, tier: 'backoff' },
    { name: 'young, delivered after its poll, stream healthy: backoff', candidate: c('a', NOW - 10, { deliveredSinceCheck: true }), healthy: true, tier: 'backoff' },
    { name: 'young, delivered, stream quiet: hot again', candidate: c('a', NOW - 10, { deliveredSinceCheck: true }), healthy: false, tier: 'hot' },
    { name: 'young, not delivered, stream healthy: hot', candidate: c('a', NOW - 10), healthy: true, tier: 'hot' },
    { name: 'young, put on back-off by a delivery, polled since, stream healthy: still backoff', candidate: c('a', NOW - 10, { tier: 'backoff' }), healthy: true, tier: 'backoff' },
    { name: 'young, put on back-off by a delivery, stream quiet: hot', candidate: c('a', NOW - 10, { tier: 'backoff' }), healthy: false, tier: 'hot' },
  ])('$name', ({ candidate, healthy, tier }) => {
    expect(tierOf(candidate, NOW, { ...POLICY, webhooksHealthy: healthy })).toBe(tier);
  });
});

describe('overdueSeconds', () => {
  it.each([
    { name: 'never seen: first of all', candidate: c('a', 0), tier: 'hot' as const, overdue: Infinity },
    { name: 'hot: due every run, late by the time since its check', candidate: c('a', 0, { checkedAt: NOW - 100 }), tier: 'hot' as const, overdue: 100 },
    { name: 'backoff inside its interval: not due', candidate: c('a', 0, { checkedAt: NOW - 100, intervalSeconds: 400 }), tier: 'backoff' as const, overdue: null },
    { name: 'backoff at its interval: due', candidate: c('a', 0, { checkedAt: NOW - 400, intervalSeconds: 400 }), tier: 'backoff' as const, overdue: 0 },
    { name: 'backoff less than half a run early: due (runs start unevenly)', candidate: c('a', 0, { checkedAt: NOW - 360, intervalSeconds: 400 }), tier: 'backoff' as const, overdue: 0 },
    { name: 'the back-off counts from the last poll, whatever was seen since', candidate: c('a', 0, { checkedAt: NOW - 900, seenAt: NOW - 50, intervalSeconds: 400 }), tier: 'backoff' as const, overdue: 500 },
    { name: 'an interval above the longest is capped', candidate: c('a', 0, { checkedAt: NOW - 900, intervalSeconds: 5000 }), tier: 'backoff' as const, overdue: 100 },
    { name: 'never polled but paged: one run after that', candidate: c('a', 0, { seenAt: NOW - 100 }), tier: 'backoff' as const, overdue: 0 },
  ])('$name', ({ candidate, tier, overdue }) => {
    expect(overdueSeconds(candidate, tier, NOW, POLICY)).toBe(overdue);
  });
});

describe('intervalInEffect', () => {
  it.each([
    { name: 'hot: none', candidate: c('a', NOW - 10, { seenAt: NOW }), tier: 'hot' as const, interval: 0 },
    { name: 'polled: the interval its check set', candidate: c('a', 5000, { checkedAt: NOW, intervalSeconds: 400 }), tier: 'backoff' as const, interval: 400 },
    { name: 'polled: at least one run', candidate: c('a', 5000, { checkedAt: NOW, intervalSeconds: 10 }), tier: 'backoff' as const, interval: 100 },
    { name: 'never polled, no longer young: the longest (so a check doubles nothing)', candidate: c('a', 5000, { seenAt: NOW }), tier: 'backoff' as const, interval: 800 },
    { name: 'never polled, no creation time: one run', candidate: c('a', null, { seenAt: NOW }), tier: 'backoff' as const, interval: 100 },
    { name: 'never polled, young, on back-off behind the webhook stream: one run', candidate: c('a', NOW - 10, { seenAt: NOW, deliveredSinceCheck: true }), tier: 'backoff' as const, interval: 100 },
  ])('$name', ({ candidate, tier, interval }) => {
    expect(intervalInEffect(candidate, tier, NOW, POLICY)).toBe(interval);
  });
});

describe('firstCheckDelay', () => {
  const history = { from: 0, to: 10_000 };
  it.each([
    { name: 'hot: none', candidate: c('a', NOW - 10), tier: 'hot' as const, history, delay: 0 },
    { name: 'newest of the history: one run', candidate: c('a', 10_000), tier: 'backoff' as const, history, delay: 100 },
    { name: 'middle of the history: halfway to the longest', candidate: c('a', 5000), tier: 'backoff' as const, history, delay: 450 },
    { name: 'oldest of the history: the longest', candidate: c('a', 0), tier: 'backoff' as const, history, delay: 800 },
    { name: 'no creation time: one run', candidate: c('a', null), tier: 'backoff' as const, history, delay: 100 },
    { name: 'no history: one run', candidate: c('a', 0), tier: 'backoff' as const, history: null, delay: 100 },
    { name: 'young, on back-off behind the webhook stream: one run', candidate: c('a', NOW - 10, { deliveredSinceCheck: true }), tier: 'backoff' as const, history, delay: 100 },
  ])('$name', ({ candidate, tier, history, delay }) => {
    expect(firstCheckDelay(candidate, tier, NOW, POLICY, history)).toBe(delay);
  });
});

describe('nextInterval', () => {
  it.each([
    { name: 'hot: one run', previous: 400, tier: 'hot' as const, changed: false, next: 100 },
    { name: 'first back-off: one run', previous: null, tier: 'backoff' as const, changed: false, next: 100 },
    { name: 'unchanged: doubled', previous: 100, tier: 'backoff' as const, changed: false, next: 200 },
    { name: 'unchanged: doubled up to the longest', previous: 600, tier: 'backoff' as const, changed: false, next: 800 },
    { name: 'a change resets it', previous: 800, tier: 'backoff' as const, changed: true, next: 100 },
  ])('$name', ({ previous, tier, changed, next }) => {
    expect(nextInterval(previous, tier, changed, POLICY)).toBe(next);
  });
});

describe('planRefresh', () => {
  const windows = [done(0, 100, 100), done(100, 200, 2000), done(200, 300, 30)];
  const old = (n: number, epoch: number) => Array.from({ length: n }, (_, i) => c(`s${epoch}-${i}`, epoch));
  /** n sessions spread evenly over [from, to]. */
  const spread = (n: number, from: number, to: number) => Array.from({ length: n }, (_, i) => c(`s${i}`, from + ((to - from) * i) / Math.max(1, n - 1)));

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
    const plan = planRefresh([young, ...old(1, 250)], windows, [[200, 300], [NOW - 100, NOW]], NOW, POLICY);
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
    const outside = c('outside', 190, { checkedAt: NOW - 10, intervalSeconds: 400 });
    expect(planRefresh([...spread(6, 150, 152), outside], windows, [], NOW, POLICY).checked.has('outside')).toBe(false);
    // Window bounds are whole seconds (an integer column on Postgres): so is the part's range.
    expect(planRefresh(spread(6, 150.4, 152.7), windows, [], NOW, POLICY).repage.map((t) => [t.passFrom, t.passTo])).toEqual([[150, 153]]);
  });
  it('pages a window whose last pass did not complete in full', () => {
    const running = [windowState(100, 200, { status: 'running', items: 2000, pages: 80 })];
    const plan = planRefresh(old(100, 150), running, [], NOW, POLICY);
    expect(plan.repage.map((t) => [t.passFrom, t.passTo])).toEqual([[100, 200]]);
    expect(plan.cost).toBe(80);
  });
  it('leaves sessions inside their back-off alone', () => {
    const resting = c('rest', 50, { checkedAt: NOW - 100, intervalSeconds: 400 });
    const due = c('due', 60, { checkedAt: NOW - 500, intervalSeconds: 400 });
    const plan = planRefresh([resting, due], windows, [], NOW, POLICY);
    expect(plan.get).toEqual(['due']);
    expect(plan.due).toBe(1);
  });
  it('spends at most the budget: hot sessions first, then the most overdue, the youngest first among equals', () => {
    // Dense windows (25 items a second): a GET each is cheaper than paging the seconds between two of them.
    const sparse = Array.from({ length: 10 }, (_, i) => done(i * 1000, (i + 1) * 1000, 25_000));
    const candidates = [
      c('hot-late', NOW - 20, { checkedAt: NOW - 300 }),
      c('hot', NOW - 10, { checkedAt: NOW - 100 }),
      c('never-old', 1500),
      c('never-young', 7500),
      c('backoff-due', 3500, { checkedAt: NOW - 450, intervalSeconds: 400 }),
    ];
    const plan = planRefresh(candidates, sparse, [], NOW, { ...POLICY, maxRequests: 3 });
    expect(plan.get).toEqual(['hot-late', 'hot', 'never-young']);
    expect(plan.cost).toBe(3);
    expect([plan.due, plan.deferred]).toEqual([5, 2]);
    expect(planRefresh(candidates, sparse, [], NOW, { ...POLICY, maxRequests: 4 }).get).toEqual(['hot-late', 'hot', 'never-young', 'never-old']);
  });
  it('pages a window again within the budget when that checks more than GETs could', () => {
    const plan = planRefresh(spread(6, 0, 99), windows, [], NOW, { ...POLICY, maxRequests: 4 });
    expect(plan.repage.map((t) => t.window.windowStart)).toEqual([0]);
    expect([plan.cost, plan.deferred, plan.checked.size]).toEqual([4, 0, 6]);
  });
  it('a freshly stored history comes due a slice at a time, youngest first, each session once within the longest interval', () => {
    // (Checked once, a session first seen old stays on the longest interval: see intervalInEffect.)
    // 80 old sessions stored by one pass at NOW, evenly over a history of ten windows.
    const history = Array.from({ length: 10 }, (_, i) => done(i * 100, (i + 1) * 100, 50));
    const stored = Array.from({ length: 80 }, (_, i) => c(`s${i}`, i * 12.5, { seenAt: NOW }));
    const young = { ...POLICY, hotSeconds: 1 };
    const dueAt: number[] = [];
    for (let run = 1; run <= 8; run++) dueAt.push(planRefresh(stored, history, [], NOW + run * 100, young).due);
    // Due counts grow by about a tenth of the history a run, the newest first.
    expect(dueAt.at(-1)).toBe(80);
    for (let i = 1; i < dueAt.length; i++) expect(dueAt[i]! - dueAt[i - 1]!).toBeLessThanOrEqual(16);
    const first = planRefresh(stored, history, [], NOW + 100, young);
    expect(first.due).toBeGreaterThan(0);
    expect(first.due).toBeLessThan(20);
    expect(Math.min(...[...first.checked.keys()].map((id) => Number(id.slice(1))))).toBeGreaterThan(60);
  });
  it('a young session the healthy webhook stream delivered waits for its back-off', () => {
    const delivered = c('d', NOW - 10, { checkedAt: NOW - 100, seenAt: NOW - 20, intervalSeconds: 400, deliveredSinceCheck: true });
    expect(planRefresh([delivered], windows, [], NOW, { ...POLICY, webhooksHealthy: true }).get).toEqual([]);
    expect(planRefresh([delivered], windows, [], NOW, POLICY).get).toEqual(['d']);
  });
});

describe('webhookStreamState', () => {
  const at = (secondsAgo: number) => new Date((NOW - secondsAgo) * 1000).toISOString();
  it.each([
    { name: 'no secret: polls by age', configured: false, last: at(10), healthy: false, detail: /^no webhook secret configured/ },
    { name: 'a delivery within healthySeconds: healthy', configured: true, last: at(100), healthy: true, detail: /^healthy: last delivery 100 s ago/ },
    { name: 'quiet for longer: polls the non-final sessions', configured: true, last: at(1200), healthy: false, detail: /^quiet: last delivery 1200 s ago \(over 900 s\); sync polls the 7 non-final/ },
    { name: 'never a delivery', configured: true, last: null, healthy: false, detail: /^no delivery received yet; sync polls the 7/ },
  ])('$name', ({ configured, last, healthy, detail }) => {
    const state = webhookStreamState({ configured, healthySeconds: 900 }, last, 7, NOW);
    expect(state.healthy).toBe(healthy);
    expect(state.detail).toMatch(detail);
  });
});

describe('defaultRefreshBudget', () => {
  it('is a fifth of what the bucket allows between two runs', () => {
    expect(defaultRefreshBudget(10, 300)).toBe(600);
    expect(defaultRefreshBudget(10, 1)).toBe(2);
    expect(defaultRefreshBudget(0.1, 1)).toBe(1);
  });
});
