import type { AccountConfig, Config } from '../config/config.js';
import { CommitQueue } from '../crawl/engine/commit-queue.js';
import type { CrawlEvent } from '../crawl/engine/crawl-deps.js';
import { StreamBudget } from '../crawl/engine/stream-budget.js';
import { WindowClaims } from '../crawl/engine/window-claims.js';
import type { RunDeps } from '../crawl/runs/run-deps.js';
import type { RunLeases } from '../crawl/runs/run-recorder.js';
import { shortestGapMs } from '../daemon/schedule.js';
import { normalizeItems } from '../normalize/normalize-item.js';
import type { Sink } from '../store/sink.js';
import type { BoundAccount } from './bind-accounts.js';
import { refreshSettingsOf } from './refresh-settings-of.js';

/** An account's gap between runs when its schedule is its own; undefined when it follows the daemon's. */
function runSecondsOf(config: Config, account: AccountConfig): number | undefined {
  const { expression, timezone } = account.schedule;
  if (expression === config.daemon.schedule && timezone === config.daemon.timezone) return undefined;
  return shortestGapMs(expression, timezone) / 1000;
}

/** RunDeps over what the process holds: its target, its bound accounts, its leases. */
export function runDeps(
  config: Config,
  io: { clock: () => number; signal: AbortSignal },
  parts: {
    sink: Sink;
    bound: readonly BoundAccount[];
    leases: RunLeases;
    onEvent?: ((event: CrawlEvent) => void) | undefined;
  },
): RunDeps {
  const streams = new StreamBudget(config.crawl.processConcurrency);
  return {
    sink: parts.sink,
    accounts: parts.bound.map((b) => ({
      name: b.config.name,
      client: b.client,
      bucket: b.limiter,
      runSeconds: runSecondsOf(config, b.config),
    })),
    crawl: config.crawl,
    refresh: refreshSettingsOf(config),
    normalize: normalizeItems,
    clock: io.clock,
    signal: io.signal,
    leases: parts.leases,
    commits: new CommitQueue(parts.sink, { openStreams: () => streams.asking }),
    claims: new WindowClaims(),
    streams,
    onEvent: parts.onEvent,
    maxSessions: duckdbCeiling(config, parts.sink),
  };
}

/** The most sessions the target may hold: a DuckDB target's store.duckdbMaxSessions (0: none); others have none. */
function duckdbCeiling(config: Config, sink: Sink): number | undefined {
  const max = config.store.duckdbMaxSessions;
  return sink.dialect === 'duckdb' && max > 0 ? max : undefined;
}
