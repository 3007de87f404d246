import type { RunningSimulator } from '../../src/simulator/index.js';
import type { Child } from './run-cli.js';

/** How long a wait may take and what ends it early. */
export interface WaitLimits {
  /** What is waited for, named when the wait gives up. */
  what?: string;
  /** A hang guard, not a timing assertion: the wait fails after this long. */
  limitMs?: number;
  /** A process whose end before the condition holds fails the wait at once, with what it wrote to stderr. */
  child?: Child;
  /**
   * How often `check` is polled. Unset, the pause starts at 5 ms and doubles up to 100 ms: a condition that holds
   * soon is seen soon, and a long wait (a daemon's runs) does not spend the suite's CPU opening the target every
   * few milliseconds.
   */
  everyMs?: number;
}

/** The pauses of an unset everyMs. */
const FIRST_PAUSE_MS = 5;
const LONGEST_PAUSE_MS = 100;

/**
 * Polls `check` until it returns a value (not undefined or false) and returns
 * that value: the condition, not a duration, ends the wait. `limits` is the
 * hang guard in milliseconds (45 s unless given), or WaitLimits.
 */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  limits: number | WaitLimits = {},
  what?: string,
): Promise<T> {
  const { limitMs = 45_000, everyMs, child, ...rest } = typeof limits === 'number' ? { limitMs: limits } : limits;
  const named = what ?? rest.what ?? 'condition';
  let ended = false;
  void child?.exited.then(() => (ended = true));
  const end = Date.now() + limitMs;
  for (let pause = everyMs ?? FIRST_PAUSE_MS; ; pause = everyMs ?? Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (ended) throw new Error(`the process ended before ${named}: ${child?.stderr() ?? ''}`);
    if (Date.now() > end) throw new Error(`gave up waiting for ${named}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/** Resolves once `seen()` holds, or `done` settled: for acting at a moment of a run that may also just end. */
export async function whenSeen(seen: () => boolean, done?: Promise<unknown>): Promise<void> {
  let finished = false;
  void done?.then(() => (finished = true));
  await until(() => seen() || finished, { what: 'the moment or the end of the run', everyMs: 2, limitMs: 120_000 });
}

/** Resolves once the simulator has received `n` requests in all, or `done` settled. */
export function afterRequests(sim: RunningSimulator, n: number, done?: Promise<unknown>): Promise<void> {
  return whenSeen(() => sim.stats.requests >= n, done);
}

/** Resolves once the simulator has received `n` more requests, or `done` settled. */
export function whenRequests(sim: RunningSimulator, n: number, done?: Promise<unknown>): Promise<void> {
  return afterRequests(sim, sim.stats.requests + n, done);
}
