import type { ApiVersion, ResourceName } from './constants.js';
import type { Cadence } from './parse-cadence.js';
import type { Secret } from './secret.js';

export type { ApiVersion, ResourceName } from './constants.js';

/** pino's levels. */
export const LOG_LEVELS = Object.freeze(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const);

export type LogLevel = (typeof LOG_LEVELS)[number];

/*
 * The typed, frozen result of loading flags, environment and config file
 * (load-config.ts). Defaults are declared once, in DEFAULTS (defaults.ts), with
 * their @default tags; the comments here say what a member means to the code
 * that reads it.
 */

/** One account: a token and where and how to use it. Each token gets its own rate bucket. */
export interface AccountConfig {
  /** Recorded in every row and window as `account`. */
  readonly name: string;
  /** Service root; plain http only for loopback hosts. Undefined when no source gave one. */
  readonly baseUrl: string | undefined;
  /** Undefined when the environment variable holding it is not set. */
  readonly token: Secret | undefined;
  /** Name of the environment variable the token came from, for messages. */
  readonly tokenEnv: string;
  readonly apiVersion: ApiVersion;
  /** Requests per second for this token. */
  readonly rate: number;
  /**
   * Uuids of the webhooks this account owns: with several accounts, their deliveries are written under it. @default []
   */
  readonly webhooks: readonly string[];
  /**
   * When the daemon syncs this account: its own `schedule` and `timezone`
   * (either falls back to the daemon's), already checked. With one account,
   * --schedule and --timezone (or their variables) win over its members.
   */
  readonly schedule: { readonly expression: string; readonly timezone: string };
}

export interface CrawlConfig {
  /**
   * Size of the epoch windows the history is split into, in seconds: the
   * grain of checkpoints, refreshes and sealing. Adjacent windows are paged
   * by one request stream, so a sparse history costs no partial page per
   * window; dense windows are split further while paging.
   */
  readonly windowSeconds: number;
  /**
   * Most request streams at once per account. Streams are added only while
   * the token bucket has room, so this is a cap (enough to keep the bucket
   * full at 1 s latency), not the number that runs.
   */
  readonly concurrency: number;
  /**
   * Most request streams at once in the process, over all its accounts,
   * shared fairly between the accounts paging (each may start one, and none
   * grows past an equal share while others page). A stream holds up to one
   * page between its request and its commit, so this bounds the pages in
   * memory when many accounts crawl at once; one account alone may use it all.
   */
  readonly processConcurrency: number;
  /** How far behind the high-water mark `sync` starts again, in seconds (late uploads). */
  readonly overlapSeconds: number;
  /** Where the first `sync` on an empty target starts, epoch seconds (--since, IVS_SINCE or crawl.since). */
  readonly since: number | undefined;
  /** What to crawl (--resources, IVS_RESOURCES or crawl.resources). */
  readonly resources: readonly ResourceName[];
  /** A stream may cut its current window in two (when the bucket has room) only after this many pages. */
  readonly splitAfterPages: number;
  /**
   * Most windows one interval may be split into, per account and resource; a larger plan is refused before anything is
   * written.
   */
  readonly maxWindows: number;
}

export interface HttpConfig {
  /** Per-request time-out, milliseconds. */
  readonly timeoutMs: number;
  readonly acceptLanguage: 'en' | 'ja';
  readonly retryLimit: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
}

export interface V2Config {
  readonly apiVersionHeader: string;
  /** Overrides of the v2 paths (see docs/api-v2.md). */
  readonly paths: Readonly<Record<string, string>>;
}

export interface WebhookConfig {
  readonly path: string;
  /** Secrets by webhook uuid. */
  readonly secrets: Readonly<Record<string, Secret>>;
  /** Used for deliveries whose webhook uuid has no secret of its own. */
  readonly defaultSecret: Secret | undefined;
  readonly maxBodyBytes: number;
  /** A request not fully arrived by then is answered 408 and its connection closed. @default 30000 */
  readonly requestTimeoutMs: number;
  /** Open connections at most; beyond it the oldest idle or slow one is closed. @default 256 */
  readonly maxConnections: number;
  /** The stream is healthy while a delivery was accepted within this many seconds. */
  readonly healthySeconds: number;
}

export interface DaemonConfig {
  /** node-cron expression, already checked (--schedule, IVS_SCHEDULE or daemon.schedule). */
  readonly schedule: string;
  /** IANA time zone, already checked (--timezone, IVS_TIMEZONE or daemon.timezone). */
  readonly timezone: string;
}

export interface RefreshConfig {
  /** Non-final sessions younger than this (seconds since creation) are re-checked on every run. */
  readonly hotSeconds: number;
  /** Longest back-off of an older non-final session, seconds. */
  readonly maxIntervalSeconds: number;
  /** Share of the token one sync spends per account (rate × schedule gap); what its passes leave, to the refresh. */
  readonly budgetShare: number;
  /**
   * The refresh's own budget per sync and account in requests (its resources share it by their non-final
   * sessions); undefined: from
   * `budgetShare`.
   */
  readonly maxRequestsPerRun: number | undefined;
}

export interface StoreConfig {
  /** How long a transaction that met a passing fault of the target is tried again, seconds (store.retrySeconds). */
  readonly retrySeconds: number;
  /** Most sessions a DuckDB target is let grow to; 0: no limit (store.duckdbMaxSessions). */
  readonly duckdbMaxSessions: number;
}

export interface AlertsConfig {
  /** Where alerts go (IVS_ALERTS_URL or alerts.url); none: no alerts. Secrets: a URL may carry one. */
  readonly urls: readonly Secret[];
  readonly retries: number;
  readonly timeoutMs: number;
  /** The staleness bound of non-final sessions' checks (alerts.staleCheckSeconds); undefined: derived per account. */
  readonly staleCheckSeconds: number | undefined;
}

export interface VerifyConfig {
  /** Most requests one verify spends (--budget, IVS_VERIFY_BUDGET or verify.budget). */
  readonly budget: number;
  /**
   * How often the daemon verifies each account; undefined: never (--verify-every, IVS_VERIFY_EVERY or verify.every).
   */
  readonly every: Cadence | undefined;
}

/** Everything a command needs, loaded once and frozen. */
export interface Config {
  readonly db: string;
  readonly json: boolean;
  readonly verbose: boolean;
  /** Path of the config file that was read, if any. */
  readonly configFile: string | undefined;
  readonly accounts: readonly AccountConfig[];
  readonly crawl: CrawlConfig;
  readonly http: HttpConfig;
  readonly v2: V2Config;
  readonly webhooks: WebhookConfig;
  readonly daemon: DaemonConfig;
  readonly refresh: RefreshConfig;
  readonly store: StoreConfig;
  readonly verify: VerifyConfig;
  readonly alerts: AlertsConfig;
  /** `debug` with --verbose, whatever the other sources say. */
  readonly logLevel: LogLevel;
}
