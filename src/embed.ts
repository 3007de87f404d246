import { pino } from 'pino';
import { openApp } from './app/open-app.js';
import type { Config } from './config/config.js';
import type { CrawlEvent } from './crawl/engine/crawl-deps.js';
import { newRunId } from './crawl/runs/run-recorder.js';
import type { RunDeps } from './crawl/runs/run-deps.js';

export interface OpenRunOptions {
  /** Stops the runs after their pages in flight committed (they end interrupted). @default never */
  signal?: AbortSignal;
  /** Milliseconds since the epoch. @default Date.now */
  clock?: () => number;
  /** Progress of the crawl: pages, passes, splits, failed windows. */
  onEvent?: (event: CrawlEvent) => void;
  /** Seconds without a heartbeat after which another process may take this one's account leases. @default 60 */
  leaseTtlSeconds?: number;
}

/** RunDeps for an embedding job, with what gives them back. */
export interface OpenedRun extends RunDeps {
  /** Gives back the leases, closes the clients and the target. */
  close(): Promise<void>;
}

/**
 * What `runSync` and `runBackfill` need, built from a Config (see
 * `loadConfig`) by the same composition root as the CLI's (src/app/open-app.ts):
 * the target (migrated), one client and bucket per account, and this
 * process's leases in the target.
 *
 * ```ts
 * const run = await openRun(loadConfig({ flags: {}, env: process.env, clock: Date.now }));
 * try {
 *   const report = await runSync(run, { accounts: ['default'], resources: ['authentications'], wait: true });
 * } finally {
 *   await run.close();
 * }
 * ```
 */
export async function openRun(config: Config, options: OpenRunOptions = {}): Promise<OpenedRun> {
  const app = await openApp(config, {
    accounts: config.accounts,
    logger: pino({ level: 'silent' }),
    id: newRunId(),
    leaseTtlSeconds: options.leaseTtlSeconds ?? 60,
    clock: options.clock ?? Date.now,
    signal: options.signal ?? new AbortController().signal,
    onEvent: options.onEvent,
  });
  return { ...app.deps, close: () => app.close() };
}
