import { pino } from 'pino';
import type { Config } from './config/config.js';
import type { CrawlEvent } from './crawl/engine/crawl-deps.js';
import { newRunId } from './crawl/runs/run-recorder.js';
import type { RunDeps } from './crawl/runs/run-deps.js';
import { bindAccounts, leaseKeeper, openTarget, runDeps, type CliIo } from './cli/runtime.js';

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
 * `loadConfig`) the way the CLI builds it: the target (migrated), one client
 * and bucket per account, and this process's leases in the target.
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
  const logger = pino({ level: 'silent' });
  const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: options.signal ?? new AbortController().signal, clock: options.clock ?? Date.now };
  const bound = bindAccounts(config, config.accounts, logger);
  const sink = await openTarget(config);
  const keeper = leaseKeeper(sink, io, logger, newRunId(), options.leaseTtlSeconds ?? 60);
  return {
    ...runDeps(config, io, { sink, bound, leases: keeper, onEvent: options.onEvent }),
    close: async () => {
      await keeper.close();
      await sink.close();
      for (const b of bound) b.client.close();
    },
  };
}
