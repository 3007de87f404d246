import { randomUUID } from 'node:crypto';
import { createClient, type ServiceClient } from '../api/client.js';
import { RateLimiter } from '../api/rate-limiter.js';
import type { AccountConfig, Config } from '../config/config.js';
import { UserError } from '../errors.js';
import { normalizeItems } from '../normalize/normalize-item.js';
import { openSink } from '../store/open-sink.js';
import type { Sink } from '../store/sink.js';
import { CommitQueue } from '../crawl/commit-queue.js';
import type { CrawlContext } from '../crawl/crawl-context.js';
import type { CrawlEvent } from '../crawl/crawl-deps.js';
import type { RequestEvent } from '../api/service-client.js';
import type { LeaseKeeper } from '../daemon/lease-keeper.js';
import { createLogger, type Logger } from './logger.js';

/** What a command gets from the composition root. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  clock: () => number;
  /** Set when a long-lived process (the daemon) runs commands inside itself. */
  host?: RunHost | undefined;
}

/**
 * What the daemon shares with the runs it starts: one target connection, one
 * client and bucket per account (so a background backfill and the scheduled
 * syncs draw on the same budget, by priority), its leases and its metrics.
 */
export interface RunHost {
  /** Shared; a run does not close it. */
  sink: Sink;
  accounts: ReadonlyMap<string, BoundAccount>;
  /** The leases of this process (holder host:pid:daemon-id). */
  leases: LeaseKeeper;
  onCrawlEvent?: ((event: CrawlEvent) => void) | undefined;
  onRunEnd?: ((command: string, status: 'succeeded' | 'failed' | 'interrupted') => void) | undefined;
}

export interface BoundAccount {
  config: AccountConfig;
  client: ServiceClient;
  limiter: RateLimiter;
}

export function newRunId(): string {
  return randomUUID().slice(0, 8);
}

export function loggerFor(config: Config, io: CliIo, runId: string): Logger {
  return createLogger({ level: config.logLevel, destination: io.stderr, runId });
}

/** The accounts to work on: all, or the one `--account` names. */
export function selectAccounts(config: Config, only: string | undefined): AccountConfig[] {
  if (only === undefined) return [...config.accounts];
  const found = config.accounts.filter((a) => a.name === only);
  if (found.length === 0) {
    throw new UserError('UNKNOWN_ACCOUNT', `no account '${only}' in the configuration (known: ${config.accounts.map((a) => a.name).join(', ')})`);
  }
  return found;
}

/**
 * The clients of the accounts: the host's when a daemon runs the command (bound
 * once per process), else new ones.
 */
export function bindAccounts(config: Config, accounts: readonly AccountConfig[], logger: Logger, io?: Pick<CliIo, 'host'>): BoundAccount[] {
  const host = io?.host;
  if (host === undefined) return createBindings(config, accounts, logger);
  return accounts.map((account) => {
    const bound = host.accounts.get(account.name);
    if (!bound) throw new UserError('UNKNOWN_ACCOUNT', `account '${account.name}' is not one the daemon serves`);
    return bound;
  });
}

/**
 * One client per account, each with its own bucket: the bucket is per token,
 * and every request of every worker of the account passes through it.
 */
export function createBindings(
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

export async function openTarget(config: Config): Promise<Sink> {
  return openSink(config.db);
}

export function crawlContext(
  config: Config,
  sink: Sink,
  accounts: readonly BoundAccount[],
  io: CliIo,
  onEvent?: (event: CrawlEvent) => void,
): CrawlContext {
  return {
    sink,
    accounts: accounts.map((a) => ({ name: a.config.name, client: a.client, bucket: a.limiter })),
    crawl: config.crawl,
    normalize: normalizeItems,
    clock: io.clock,
    signal: io.signal,
    onEvent: io.host?.onCrawlEvent ? fanOut(io.host.onCrawlEvent, onEvent) : onEvent,
    commits: new CommitQueue(sink),
  };
}

export function requestsOf(accounts: readonly BoundAccount[]): number {
  return accounts.reduce((sum, a) => sum + a.client.stats.requests, 0);
}

function fanOut(first: (event: CrawlEvent) => void, second: ((event: CrawlEvent) => void) | undefined): (event: CrawlEvent) => void {
  return (event) => {
    first(event);
    second?.(event);
  };
}
