import type { Config } from '../config/config.js';
import { openSink, type StoreLogger } from '../store/open-sink.js';
import type { QueryableSink } from '../store/sql-sink.js';

export interface OpenTargetOptions {
  /** For the commands that only read: a missing target is an error, never created. */
  existing?: boolean;
  /** `--wait`: a DuckDB file another process has open is waited for (until `signal` aborts), not refused. */
  wait?: { signal: AbortSignal; logger: StoreLogger };
  /**
   * Told of migrations applied and of transactions retried while the database restarts.
   * @default the wait's, else none
   */
  logger?: StoreLogger;
  /** Ends the retries of an unavailable target at once (the process's SIGINT and SIGTERM). @default never */
  signal?: AbortSignal;
}

/** Opens the configured target (`db`), migrated unless `existing`. */
export async function openTarget(config: Config, options: OpenTargetOptions = {}): Promise<QueryableSink> {
  const wait = options.wait;
  const logger = options.logger ?? wait?.logger;
  return openSink(config.db, {
    existing: options.existing ?? false,
    retrySeconds: config.store.retrySeconds,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(wait ? { waitWhileLocked: wait.signal } : {}),
    ...(logger ? { logger } : {}),
  });
}
