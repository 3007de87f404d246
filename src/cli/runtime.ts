import { hostname } from 'node:os';
import { createClient, type ServiceClient } from '../api/client.js';
import { RateLimiter } from '../api/rate-limiter.js';
import type { RequestEvent } from '../api/service-client.js';
import type { AccountConfig, Config } from '../config/config.js';
import { CommitQueue } from '../crawl/engine/commit-queue.js';
import type { CrawlEvent } from '../crawl/engine/crawl-deps.js';
import { WindowClaims } from '../crawl/engine/window-claims.js';
import { refreshSettings, type RefreshSettings } from '../crawl/refresh/refresh-settings.js';
import type { RunDeps, RunLeases } from '../crawl/runs/run-deps.js';
import { LeaseKeeper } from '../daemon/lease-keeper.js';
import { shortestGapMs } from '../daemon/schedule.js';
import { InputError, UserError } from '../errors.js';
import { normalizeItems } from '../normalize/normalize-item.js';
import { holderId } from '../store/leases/lease-names.js';
import { openSink } from '../store/open-sink.js';
import type { Sink } from '../store/sink.js';
import { localHolderIsDead } from './local-holder.js';
import { createLogger, type Logger } from './logger.js';

export { newRunId } from '../crawl/runs/run-recorder.js';

/** What a command gets from the composition root. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  /** The signal that aborted `signal`, once one did: the CLI says what it does about it. */
  signalName?: () => string | undefined;
  clock: () => number;
}

/** An account with its client and bucket: one per token for the life of the process. */
export interface BoundAccount {
  config: AccountConfig;
  client: ServiceClient;
  limiter: RateLimiter;
}

/** The logger of a command: its lines carry the id of its run, or the daemon's id for the daemon's own records. */
export function loggerFor(config: Config, io: CliIo, id: string | { daemon: string }): Logger {
  return createLogger({ level: config.logLevel, destination: io.stderr, bindings: typeof id === 'string' ? { run: id } : id, clock: io.clock });
}

/** The accounts to work on: all, or the one `--account` names. */
export function selectAccounts(config: Config, only: string | undefined): AccountConfig[] {
  if (only === undefined) return [...config.accounts];
  const found = config.accounts.filter((a) => a.name === only);
  if (found.length === 0) {
    throw new InputError('UNKNOWN_ACCOUNT', `no account '${only}' in the configuration (known: ${config.accounts.map((a) => a.name).join(', ')})`, {
      source: { kind: 'flag', name: '--account' },
      value: only,
    });
  }
  return found;
}

/**
 * One client per account, each with its own bucket: the bucket is per token,
 * and every request of every worker of the account passes through it.
 */
export function bindAccounts(
  config: Config,
  accounts: readonly AccountConfig[],
  logger: Logger,
  onRequest?: (account: string, event: RequestEvent) => void,
): BoundAccount[] {
  return accounts.map((account) => {
    if (!account.baseUrl) {
      throw new UserError('NO_BASE_URL', `no service URL for account '${account.name}': give --base-url or IVS_BASE_URL`);
    }
    if (!account.token) {
      throw new UserError('NO_TOKEN', `no API token for account '${account.name}': set ${account.tokenEnv} (or --token)`);
    }
    const limiter = new RateLimiter({ rate: account.rate });
    const client = createClient({
      baseUrl: account.baseUrl,
      token: account.token,
      apiVersion: account.apiVersion,
      limiter,
      timeoutMs: config.http.timeoutMs,
      acceptLanguage: config.http.acceptLanguage,
      retry: { limit: config.http.retryLimit, baseMs: config.http.retryBaseMs, maxMs: config.http.retryMaxMs },
      v2: { apiVersionHeader: config.v2.apiVersionHeader, paths: config.v2.paths },
      onRequest: (event) => {
        logger.debug({ account: account.name, ...event }, 'request');
        onRequest?.(account.name, event);
      },
    });
    return { config: account, client, limiter };
  });
}

export interface OpenTargetOptions {
  /** For the commands that only read: a missing target is an error, never created. */
  existing?: boolean;
  /** `--wait`: a DuckDB file another process has open is waited for (with `io.signal`), not refused. */
  wait?: { signal: AbortSignal; logger: Logger };
  /**
   * Told of migrations applied and of transactions retried while the database restarts.
   * @default the wait's, else none
   */
  logger?: Logger;
  /** Ends the retries of an unavailable target at once (the process's SIGINT and SIGTERM). @default never */
  signal?: AbortSignal;
}

/** Opens --db. */
export async function openTarget(config: Config, options: OpenTargetOptions = {}): Promise<Sink> {
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

/** The leases of this process: its holder id names the host, the pid and the run (or daemon) id. */
export function leaseKeeper(sink: Sink, io: CliIo, logger: Logger, id: string, ttlSeconds: number): LeaseKeeper {
  return new LeaseKeeper({ sink, holder: holderId(hostname(), process.pid, id), ttlSeconds, clock: io.clock, logger, holderIsDead: localHolderIsDead() });
}

/**
 * The refresh policy's settings: the config's members, the schedule's gap as
 * one run (plain `sync` from cron is expected on the same schedule), and the
 * slowest account's rate for the default budget.
 */
export function refreshSettingsOf(config: Config): RefreshSettings {
  const webhooks = config.webhooks;
  return refreshSettings({
    refresh: config.refresh,
    runSeconds: shortestGapMs(config.daemon.schedule, config.daemon.timezone) / 1000,
    rate: Math.min(...config.accounts.map((a) => a.rate)),
    webhooks: { configured: webhooks.defaultSecret !== undefined || Object.keys(webhooks.secrets).length > 0, healthySeconds: webhooks.healthySeconds },
  });
}

/** RunDeps over what the process holds: its target, its bound accounts, its leases. */
export function runDeps(config: Config, io: CliIo, parts: { sink: Sink; bound: readonly BoundAccount[]; leases: RunLeases; onEvent?: ((event: CrawlEvent) => void) | undefined }): RunDeps {
  return {
    sink: parts.sink,
    accounts: parts.bound.map((b) => ({ name: b.config.name, client: b.client, bucket: b.limiter })),
    crawl: config.crawl,
    refresh: refreshSettingsOf(config),
    normalize: normalizeItems,
    clock: io.clock,
    signal: io.signal,
    leases: parts.leases,
    commits: new CommitQueue(parts.sink),
    claims: new WindowClaims(),
    onEvent: parts.onEvent,
  };
}

/**
 * For one crawling command: binds the accounts (before anything touches the
 * target, so a missing token costs nothing), opens the target, and gives the
 * body its RunDeps; then gives back the leases and closes the clients and the
 * target, whatever happens.
 */
export async function withRunDeps<T>(
  config: Config,
  io: CliIo,
  accounts: readonly AccountConfig[],
  options: { runId: string; logger: Logger; ttlSeconds: number; onEvent?: (event: CrawlEvent) => void; existing?: boolean; wait?: boolean },
  body: (deps: RunDeps) => Promise<T>,
): Promise<T> {
  const bound = bindAccounts(config, accounts, options.logger);
  try {
    const sink = await openTarget(config, {
      existing: options.existing ?? false,
      logger: options.logger,
      signal: io.signal,
      ...(options.wait === true ? { wait: { signal: io.signal, logger: options.logger } } : {}),
    });
    const keeper = leaseKeeper(sink, io, options.logger, options.runId, options.ttlSeconds);
    try {
      return await body(runDeps(config, io, { sink, bound, leases: keeper, onEvent: options.onEvent }));
    } finally {
      await keeper.close();
      await sink.close();
    }
  } finally {
    for (const b of bound) b.client.close();
  }
}
