import type { RunningSimulator } from '../../src/simulator/index.js';
import type { Child } from '../helpers/run-cli.js';

/** Resolves once `seen()` holds, or `done` settled (polls; no fixed sleeps). */
export async function whenSeen(seen: () => boolean, done?: Promise<unknown>): Promise<void> {
  let finished = false;
  void done?.then(() => (finished = true));
  while (!seen() && !finished) await new Promise((r) => setTimeout(r, 2));
}

/** Resolves once the simulator has received `n` requests in all, or `done` settled. */
export function afterRequests(sim: RunningSimulator, n: number, done?: Promise<unknown>): Promise<void> {
  return whenSeen(() => sim.stats.requests >= n, done);
}

/** Resolves once the simulator has received `n` more requests, or `done` settled. */
export function whenRequests(sim: RunningSimulator, n: number, done?: Promise<unknown>): Promise<void> {
  return afterRequests(sim, sim.stats.requests + n, done);
}

/** Polls `check` until it returns a value (not undefined), or throws after `limitMs` (a hang guard, not a timing assertion). */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, limitMs = 45_000, what = 'condition'): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The base URL a daemon started with `--port 0` serves on, from its log line. */
export async function servedUrl(child: Child): Promise<string> {
  let exited = false;
  void child.exited.then(() => (exited = true));
  return until(() => {
    const url = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"serving \/healthz and \/metrics"/.exec(child.stderr())?.[1];
    if (url === undefined && exited) throw new Error(`the daemon exited before serving: ${child.stderr()}`);
    return url;
  }, 30_000, 'the daemon serving');
}
