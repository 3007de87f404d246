import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mayAddStream, StreamBudget } from '../../src/crawl/engine/stream-budget.js';
import { cliError, runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';

const DECISIONS: Array<{ name: string; limit: number; total: number; own: number; accounts: number; may: boolean }> = [
  { name: 'an account without a stream always starts one', limit: 4, total: 9, own: 0, accounts: 10, may: true },
  { name: 'one account alone may use the whole cap', limit: 96, total: 95, own: 95, accounts: 1, may: true },
  { name: 'not past the cap', limit: 96, total: 96, own: 96, accounts: 1, may: false },
  { name: 'forty accounts: up to an equal share each', limit: 96, total: 60, own: 2, accounts: 40, may: true },
  { name: 'forty accounts: not past the share', limit: 96, total: 60, own: 3, accounts: 40, may: false },
  { name: 'two accounts, room left: grows to its half', limit: 10, total: 6, own: 4, accounts: 2, may: true },
  { name: 'two accounts: stops at its half', limit: 10, total: 6, own: 5, accounts: 2, may: false },
  { name: 'the share is rounded up', limit: 10, total: 8, own: 3, accounts: 3, may: true },
];

describe('mayAddStream', () => {
  for (const d of DECISIONS) {
    it(d.name, () => {
      expect(mayAddStream({ limit: d.limit, total: d.total, own: d.own, accounts: d.accounts })).toBe(d.may);
    });
  }
});

describe('StreamBudget', () => {
  it('counts streams per account and shares the cap among the accounts paging now', () => {
    const budget = new StreamBudget(4);
    for (let i = 0; i < 4; i++) budget.add('a');
    expect(budget.mayAdd('a')).toBe(false);
    // b may start while a holds all four, but not grow.
    expect(budget.mayAdd('b')).toBe(true);
    budget.add('b');
    expect(budget.mayAdd('b')).toBe(false);
    // Two of a's streams end: b grows to its half, a does not grow back past it.
    budget.remove('a');
    budget.remove('a');
    expect(budget.total).toBe(3);
    expect(budget.mayAdd('b')).toBe(true);
    budget.add('b');
    expect(budget.mayAdd('a')).toBe(false);
    budget.remove('b');
    budget.remove('b');
    expect(budget.mayAdd('a')).toBe(true);
  });

  it('tells the cap apart from the pages held: only the cap is a setting to raise', () => {
    const budget = new StreamBudget(4, 1);
    budget.add('a');
    budget.add('b');
    budget.hold();
    // One page held: no stream is added, but not for the cap.
    expect(budget.mayAdd('a')).toBe(false);
    expect(budget.atCap('a')).toBe(false);
    budget.release();
    budget.add('a');
    // a has its half of four.
    expect(budget.mayAdd('a')).toBe(false);
    expect(budget.atCap('a')).toBe(true);
    expect(budget.atCap('b')).toBe(false);
  });
});

describe('StreamBudget: pages held between response and commit', () => {
  it('lets no stream ask for more while the process holds its most; one sends per page committed', async () => {
    const budget = new StreamBudget(8, 2);
    budget.add('a');
    budget.add('a');
    budget.add('b');
    // Pages a second at a round trip of a second: the streams asking are not what holds them here.
    budget.hold(1_000);
    expect(budget.room()).toBeUndefined();
    budget.hold(1_000);
    // Two held: a third stream waits, and none is added (an account without a stream still starts one).
    expect(budget.mayAdd('a')).toBe(false);
    expect(budget.mayAdd('c')).toBe(true);
    const order: string[] = [];
    const first = budget.room()!.then(() => order.push('first'));
    const second = budget.room()!.then(() => order.push('second'));
    budget.release();
    await first;
    expect(order).toEqual(['first']);
    // The woken stream's page arrives and takes the place; the next commit lets the second send.
    budget.hold(1_000);
    budget.release();
    await second;
    expect(order).toEqual(['first', 'second']);
    expect(budget.held).toBe(1);
  });

  it('wakes the next waiting stream when a woken one ends without a page, so none waits for good', async () => {
    const budget = new StreamBudget(8, 1);
    budget.add('a');
    budget.add('a');
    budget.add('a');
    budget.hold(1_000);
    let woken = 0;
    const waits = [budget.room()!, budget.room()!].map((p) => p.then(() => woken++));
    budget.release();
    await waits[0];
    expect(woken).toBe(1);
    // The first woken stream's request failed: its stream ends, and the other may send.
    budget.remove('a');
    await waits[1];
    expect(woken).toBe(2);
  });

  it('bounds the streams asking at once by the cycles of the pages arriving, beyond the pages held', () => {
    let now = 0;
    const budget = new StreamBudget(1024, 4, () => now);
    // Before any page is back the round trip is unknown: only the cap holds.
    expect(budget.inFlightBound()).toBe(1024);
    for (let i = 0; i < 5; i++) budget.add('a');
    // Ten pages in the first half second, each a cycle of a second: twenty a second want twenty asking, twice that
    // allowed.
    for (let i = 0; i < 10; i++) budget.hold(1_000)();
    now += 500;
    expect(budget.inFlightBound()).toBe(4 + 40);
    expect(budget.mayAdd('a')).toBe(true);
    // Two accounts: each page counts its own cycle.
    now += 2_000;
    for (let i = 0; i < 10; i++) budget.hold(1_000)();
    for (let i = 0; i < 100; i++) budget.hold(10)();
    now += 20;
    expect(budget.inFlightBound()).toBe(4 + 2 * (10 + 1));
    // The service answers in a few milliseconds, as when the writer sets the pace: near the pages held.
    now += 2_000;
    for (let i = 0; i < 100; i++) budget.hold(4)();
    now += 20;
    expect(budget.inFlightBound()).toBe(4 + 1);
    for (let i = 0; i < 3; i++) budget.add('a');
    // Eight streams asking, five allowed: no stream is added, and one with its page in hand waits.
    expect(budget.mayAdd('a')).toBe(false);
    expect(budget.atCap('a')).toBe(false);
    expect(budget.room()).toBeInstanceOf(Promise);
    expect(budget.asking).toBe(7);
    // No page arrives for a second: the bound falls back to the pages held.
    now += 2_000;
    expect(budget.inFlightBound()).toBe(4);
  });

  it("a page's release, called twice (after its commit and again on the way out), releases it once", () => {
    const budget = new StreamBudget(8, 4);
    const release = budget.hold();
    budget.hold();
    release();
    release();
    expect(budget.held).toBe(1);
  });

  it('holds at most as many pages as streams may be open', () => {
    const budget = new StreamBudget(1);
    budget.add('a');
    budget.hold();
    expect(budget.room()).toBeInstanceOf(Promise);
  });
});

/** A pass-through HTTP proxy in front of the simulator that records the most requests it had open at once. */
async function countingProxy(target: string): Promise<{ url: string; peak: () => number; server: Server }> {
  let open = 0;
  let peak = 0;
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    open++;
    peak = Math.max(peak, open);
    res.on('close', () => open--);
    const { method, url: path, headers } = req;
    const forward = request({ host: upstream.hostname, port: upstream.port, method, path, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, peak: () => peak, server };
}

const tempDir = useTempDir();
const simulator = useSimulators({ seed: 11 });
let proxies: Server[] = [];
afterEach(async () => {
  await Promise.all(proxies.map((p) => new Promise((resolve) => p.close(resolve))));
  proxies = [];
});

describe('the process-wide cap on streams', () => {
  const names = ['north', 'south'];

  async function backfill(processConcurrency: number): Promise<{ peak: number; stored: number; truth: number }> {
    const tokens = Object.fromEntries(names.map((name) => [`token-${name}`, name]));
    // Latency keeps requests open long enough to overlap; no limit, so every account would grow to its own cap.
    const lifted = { rate: 100_000, burst: 100_000 };
    const sim = await simulator({ sessions: 400, tokens, ...lifted, latencyMs: 40, otherOwnerSessions: 0 });
    const proxy = await countingProxy(sim.url);
    proxies.push(proxy.server);
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const accounts = names.map((name) => ({ name, tokenEnv: `IVS_TOKEN_${name.toUpperCase()}`, rate: 100_000 }));
    const config = writeConfig(dir, {
      accounts,
      crawl: { windowSeconds: 15 * 86_400, concurrency: 8, processConcurrency, overlapSeconds: 86_400 },
    });
    const env: Record<string, string> = { IVS_BASE_URL: proxy.url, IVS_DB: `sqlite:${db}`, IVS_CONFIG: config };
    for (const name of names) env[`IVS_TOKEN_${name.toUpperCase()}`] = `token-${name}`;
    const result = await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env);
    expect(cliError(result.stderr)).toBeUndefined();
    expect(result.code).toBe(0);
    let truth = 0;
    for (const name of names) {
      for (const r of ['authentications', 'fingerprints'] as const) truth += sim.world.truth(`token-${name}`, r).length;
    }
    const both = 'SELECT (SELECT count(*) FROM authentications) + (SELECT count(*) FROM fingerprints) AS n';
    const [count] = query<{ n: number }>(db, both);
    return { peak: proxy.peak(), stored: count!.n, truth };
  }

  it('keeps the requests of all accounts within it, and every account pages to the end', async () => {
    const capped = await backfill(3);
    expect(capped.stored).toBe(capped.truth);
    expect(capped.peak).toBeLessThanOrEqual(3);
    // The same backfill without a binding cap opens more: the cap is what held it.
    const free = await backfill(64);
    expect(free.stored).toBe(free.truth);
    expect(free.peak).toBeGreaterThan(3);
  }, 120_000);
});
