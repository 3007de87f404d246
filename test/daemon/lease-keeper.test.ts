import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LeaseHeldError } from '../../src/daemon/lease-held-error.js';
import { LeaseKeeper } from '../../src/daemon/lease-keeper.js';
import { LeaseLostError } from '../../src/daemon/lease-lost-error.js';
import { InterruptedError } from '../../src/errors.js';
import { openSink } from '../../src/store/open-sink.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/wait.js';

const tempDir = useTempDir();
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const sinks: QueryableSink[] = [];
const keepers: LeaseKeeper[] = [];
afterEach(async () => {
  for (const k of keepers.splice(0)) await k.close();
  for (const s of sinks.splice(0)) await s.close();
});

/** Two processes' worth of state on one real SQLite target, each with its own connection and clock. */
async function twoKeepers(clock: { now: number }) {
  const target = `sqlite:${join(tempDir(), 'ivsync.sqlite')}`;
  const attempts = new Map<string, number>();
  const make = async (holder: string) => {
    const sink = await openSink(target);
    sinks.push(sink);
    // The real sink, with the keeper's attempts at a lease counted: a test waits on
    // attempts, not on time.
    const counted = {
      acquireLease: (...args: Parameters<typeof sink.acquireLease>) => {
        attempts.set(holder, (attempts.get(holder) ?? 0) + 1);
        return sink.acquireLease(...args);
      },
      releaseLease: sink.releaseLease.bind(sink),
      abandonRuns: sink.abandonRuns.bind(sink),
    };
    const keeper = new LeaseKeeper({
      sink: counted,
      holder,
      ttlSeconds: 30,
      clock: () => clock.now,
      logger: silent,
      pollMs: 5,
    });
    keepers.push(keeper);
    return keeper;
  };
  const a = await make('hostA:1:run-a');
  const b = await make('hostB:2:run-b');
  return { a, b, sink: sinks[0]!, attemptsOf: (holder: string) => attempts.get(holder) ?? 0 };
}

describe('account leases', () => {
  it('a second holder is refused with the holder named; released leases are free again', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const { a, b, sink } = await twoKeepers(clock);
    const never = new AbortController().signal;
    const release = await a.hold(['account:x', 'account:y'], { wait: false, signal: never });
    const refused = await b.hold(['account:y'], { wait: false, signal: never }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LeaseHeldError);
    expect((refused as Error).message).toMatch(/account:y is held by hostA:1:run-a since 2026-01-01T00:00:00/);
    // All or none: b got account:z for a moment and gave it back.
    await expect(b.hold(['account:z', 'account:x'], { wait: false, signal: never })).rejects.toBeInstanceOf(
      LeaseHeldError,
    );
    expect((await sink.leases()).map((l) => [l.name, l.holder])).toEqual([
      ['account:x', 'hostA:1:run-a'],
      ['account:y', 'hostA:1:run-a'],
    ]);
    await release();
    expect(await sink.leases()).toEqual([]);
    const again = await b.hold(['account:y'], { wait: false, signal: never });
    expect(b.holds('account:y')).toBe(true);
    await again();
  });

  it('holds of one process are counted: the lease goes when the last user ends', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const { a, sink } = await twoKeepers(clock);
    const never = new AbortController().signal;
    const sync = await a.hold(['account:x'], { wait: false, signal: never });
    const backfill = await a.hold(['account:x'], { wait: false, signal: never });
    await sync();
    expect((await sink.leases()).map((l) => l.name)).toEqual(['account:x']);
    await backfill();
    expect(await sink.leases()).toEqual([]);
  });

  it('--wait waits for the release; a stale lease (holder died) is taken over', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const { a, b, attemptsOf } = await twoKeepers(clock);
    const never = new AbortController().signal;
    const releaseA = await a.hold(['account:x'], { wait: false, signal: never });
    let got = false;
    const waiting = b.hold(['account:x'], { wait: true, signal: never }).then((r) => {
      got = true;
      return r;
    });
    // b has found the lease held several times over and still waits.
    await until(() => (attemptsOf(b.holder) >= 3 ? true : undefined), 10_000, 'three attempts by the waiting keeper');
    expect(got).toBe(false);
    await releaseA();
    const releaseB = await waiting;
    expect(b.holds('account:x')).toBe(true);
    // b "dies" (no heartbeat); 31 s later by the clock a takes over.
    clock.now += 31_000;
    const takeover = await a.hold(['account:x'], { wait: false, signal: never });
    expect(a.holds('account:x')).toBe(true);
    await takeover();
    await releaseB();
  });

  it('a wait ends with InterruptedError on a signal', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const { a, b } = await twoKeepers(clock);
    const release = await a.hold(['account:x'], { wait: false, signal: new AbortController().signal });
    const stop = new AbortController();
    const waiting = b.hold(['account:x'], { wait: true, signal: stop.signal });
    stop.abort();
    await expect(waiting).rejects.toBeInstanceOf(InterruptedError);
    await release();
  });
});

describe('heartbeat', () => {
  it('a heartbeat in flight when its lease is released does not bring the lease back', async () => {
    const target = `sqlite:${join(tempDir(), 'ivsync.sqlite')}`;
    const sink = await openSink(target);
    sinks.push(sink);
    // The heartbeat's renewals wait at a gate, so a release can come while one is in flight.
    let gate: Promise<void> | undefined;
    let open = (): void => undefined;
    let renewalWaiting = (): void => undefined;
    const waiting = new Promise<void>((resolve) => (renewalWaiting = resolve));
    const gated = {
      acquireLease: async (...args: Parameters<QueryableSink['acquireLease']>) => {
        if (gate) {
          renewalWaiting();
          await gate;
        }
        return sink.acquireLease(...args);
      },
      releaseLease: (name: string, holder: string) => sink.releaseLease(name, holder),
      abandonRuns: (holder: string, at: string, how: string) => sink.abandonRuns(holder, at, how),
    };
    const keeper = new LeaseKeeper({
      sink: gated,
      holder: 'hostA:1:run-a',
      ttlSeconds: 0.03,
      clock: () => Date.now(),
      logger: silent,
    });
    keepers.push(keeper);
    const release = await keeper.hold(['account:x'], { wait: false, signal: new AbortController().signal });
    gate = new Promise<void>((resolve) => (open = resolve));
    await waiting; // a heartbeat's renewal of account:x is in flight
    const released = release();
    open();
    await released;
    await keeper.close();
    expect(await sink.leases()).toEqual([]);
  });
});

describe('a lease taken over', () => {
  it("aborts the loss signal of its holder at the holder's next heartbeat, naming the new holder", async () => {
    const target = `sqlite:${join(tempDir(), 'ivsync.sqlite')}`;
    const make = async (holder: string, now: number) => {
      const sink = await openSink(target);
      sinks.push(sink);
      // Beats every 100 ms of real time; the fixed clock decides staleness.
      const keeper = new LeaseKeeper({ sink, holder, ttlSeconds: 0.3, clock: () => now, logger: silent });
      keepers.push(keeper);
      return keeper;
    };
    // a "hangs": its heartbeats say a minute before b's clock, so to b its leases look abandoned.
    const start = Date.UTC(2026, 0, 1);
    const a = await make('hostA:1:run-a', start);
    const b = await make('hostB:2:run-b', start + 60_000);
    const never = new AbortController().signal;
    await a.hold(['account:x'], { wait: false, signal: never });
    await a.hold(['account:y'], { wait: false, signal: never });
    const lossOfX = a.lossSignal(['account:x']);
    const lossOfBoth = a.lossSignal(['account:x', 'account:y']);
    await b.hold(['account:x'], { wait: false, signal: never });
    const reason = await new Promise<unknown>((resolve) =>
      lossOfBoth.addEventListener('abort', () => resolve(lossOfBoth.reason), { once: true }),
    );
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect((reason as Error).message).toMatch(/^account:x was taken over by hostB:2:run-b: /);
    expect(lossOfX.aborted).toBe(true);
    // account:y is still a's.
    expect(a.lossSignal(['account:y']).aborted).toBe(false);
    expect(() => a.lossSignal(['account:z'])).toThrow(/not held/);
  });
});
