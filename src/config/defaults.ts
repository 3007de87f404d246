import type { ApiVersion, ResourceName } from './constants.js';
import type { AlertUrlRef } from './alert-urls.js';
import type { LogLevel } from './config.js';

/** Freezes an object and everything inside it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Every default of ivsync, declared once, in the shape of the config file.
 * The loader falls back to these; `ivsync init` writes them out (with the
 * descriptions of member-docs.ts), so the written file and the loader cannot
 * disagree. A member whose default is `undefined` has none: `ivsync init`
 * writes it commented out.
 */
export const DEFAULTS = deepFreeze({
  /**
   * Service root; plain `http://` only for loopback hosts. Required by every
   * command that talks to the service. Flag `--base-url`, env `IVS_BASE_URL`.
   * @default undefined
   */
  baseUrl: undefined as string | undefined,
  /** Interface version. Flag `--api-version`, env `IVS_API_VERSION`. @default '1.4' */
  apiVersion: '1.4' as ApiVersion,
  /** Target: `sqlite:PATH`, `duckdb:PATH` or `postgres://...`. Flag `--db`, env `IVS_DB`. @default 'sqlite:./data/ivsync.sqlite' */
  db: 'sqlite:./data/ivsync.sqlite',
  /** Requests per second for each token (the service's limit is 10). Flag `--rate`, env `IVS_RATE`. @default 10 */
  rate: 10,
  /**
   * pino level; `--verbose` means `debug` whatever this says. Flag `--log-level`, env `IVS_LOG_LEVEL`. @default 'info'
   */
  logLevel: 'info' as LogLevel,
  /**
   * The accounts, each with its own token and bucket. The first account's
   * token variable defaults to `IVS_API_TOKEN`, the others' to
   * `IVS_API_TOKEN_<NAME>`.
   * @default [{ name: 'default', tokenEnv: 'IVS_API_TOKEN' }]
   */
  accounts: [{ name: 'default', tokenEnv: 'IVS_API_TOKEN' }] as ReadonlyArray<{
    readonly name: string;
    readonly tokenEnv: string;
  }>,
  crawl: {
    /**
     * Size of the epoch windows the history is split into, in seconds. A
     * window costs at least one request, so sparse histories want large
     * windows; dense windows are split further while paging.
     * @default 604800 (one week)
     */
    windowSeconds: 604_800,
    /**
     * Request streams at once per account: 10 requests/s kept full up to a round trip of about 6 s (24, the
     * default before, held the rate to 0.68 of the limit at 3 s). Streams are added only while the bucket has
     * room, so a crawl at 150 ms still pages with a handful. @default 64
     */
    concurrency: 64,
    /**
     * Streams at once over all accounts of the process; each account grows to an equal share of it while others
     * page. A stream waiting on the service holds next to nothing, and the streams asking at once are bounded
     * apart by what the pages arriving need (stream-budget.ts). Forty accounts at 10 requests/s and a 1 s round
     * trip need some 400 at once: 256, the default before, gave each 0.52-0.57 of its limit. @default 1024
     */
    processConcurrency: 1024,
    /**
     * How far behind the high-water mark `sync` starts again, in seconds.
     * Sessions recorded on offline devices are uploaded late with their
     * original timestamps; a day covers a device offline for a working day and
     * a night.
     * @default 86400
     */
    overlapSeconds: 86_400,
    /** Where the first `sync` of an empty target starts. Flag `--since`, env `IVS_SINCE`. @default undefined */
    since: undefined as string | undefined,
    /** Flag `--resources`, env `IVS_RESOURCES`. @default ['authentications', 'fingerprints'] */
    resources: ['authentications', 'fingerprints'] as readonly ResourceName[],
    /** A window still paging after this many pages may be split when workers are idle. @default 4 */
    splitAfterPages: 4,
    /**
     * Most windows one interval may be split into, per account and resource.
     * Every window costs at least one request and one row, so 100,000 windows
     * are at least 2.8 hours of requests at 10/s before any data: enough for
     * hourly windows over eleven years, or daily windows since 2000, while a
     * mistake (minute windows over years, a time in milliseconds) is refused
     * before anything is written.
     * @default 100000
     */
    maxWindows: 100_000,
  },
  http: {
    /** Per-request time-out in milliseconds. @default 30000 */
    timeoutMs: 30_000,
    /** Language of the service's display strings: `en` or `ja`. @default 'en' */
    acceptLanguage: 'en' as 'en' | 'ja',
    /** Retries after the first attempt. @default 8 */
    retryLimit: 8,
    /** First retry delay in milliseconds, doubled per attempt, with full jitter. @default 500 */
    retryBaseMs: 500,
    /** Longest retry delay in milliseconds. @default 30000 */
    retryMaxMs: 30_000,
  },
  v2: {
    /** The `Api-Version` header sent on v2 requests. @default '2.0.0' */
    apiVersionHeader: '2.0.0',
    /** Overrides of the v2 operation paths (docs/api-v2.md). @default {} */
    paths: {} as Readonly<Record<string, string>>,
  },
  webhooks: {
    /** Path the receiver takes deliveries at. @default '/webhooks' */
    path: '/webhooks',
    /**
     * Secret for every webhook without its own: text, or `{ env: NAME }`. `IVS_WEBHOOK_SECRET` wins over it. @default {
     * env: 'IVS_WEBHOOK_SECRET' }
     */
    secret: { env: 'IVS_WEBHOOK_SECRET' } as string | { readonly env: string },
    /** Secrets by webhook uuid: text, or `{ env: NAME }`. @default {} */
    secrets: {} as Readonly<Record<string, string | { readonly env: string }>>,
    /** Largest delivery body accepted, in bytes. @default 1048576 (1 MiB) */
    maxBodyBytes: 1_048_576,
    /** A request not fully arrived by then is answered 408 and its connection closed. @default 30000 */
    requestTimeoutMs: 30_000,
    /** Open connections at most; beyond it the oldest idle or slow one is closed. @default 256 */
    maxConnections: 256,
    /**
     * The stream counts as healthy while the receiver accepted a delivery this
     * recently (seconds): sync then leaves delivered sessions to their
     * back-off instead of polling them as hot.
     * @default 900
     */
    healthySeconds: 900,
  },
  daemon: {
    /**
     * node-cron expression, 5 fields or 6 with seconds first. Flag `--schedule`, env `IVS_SCHEDULE`. @default '*\/5 * *
     * * *'
     */
    schedule: '*/5 * * * *',
    /** IANA time zone the schedule is read in. Flag `--timezone`, env `IVS_TIMEZONE`. @default 'UTC' */
    timezone: 'UTC',
  },
  refresh: {
    /**
     * Non-final sessions younger than this (seconds since their creation) are hot: re-checked first, on every sync.
     * @default 86400
     */
    hotSeconds: 86_400,
    /**
     * Sessions a healthy webhook stream keeps up to date are polled on a back-off doubling from one run up to this many
     * seconds. @default 86400
     */
    maxIntervalSeconds: 86_400,
    /**
     * Share of the token one sync spends per account: of rate × schedule gap
     * requests, what the incremental pass leaves goes to re-checking
     * non-final sessions, all of them when that fits, else the stalest first.
     * Env `IVS_REFRESH_BUDGET_SHARE`.
     * @default 0.1
     */
    budgetShare: 0.1,
    /**
     * The refresh's own budget in requests per sync and account (its
     * resources share it by their non-final sessions), instead of `budgetShare`. Flag
     * `--refresh-budget`, env `IVS_REFRESH_BUDGET`.
     * @default undefined
     */
    maxRequestsPerRun: undefined as number | undefined,
  },
  store: {
    /**
     * How long a transaction that met a passing fault of the target is tried
     * again, whole, before the run fails, in seconds: a database restarting or
     * shutting down (57P01, 57P02, 57P03), a connection refused or reset, a
     * serialization failure or deadlock (40001, 40P01). 0 fails at once.
     * @default 60
     */
    retrySeconds: 60,
    /**
     * Most sessions a DuckDB target is let grow to: a backfill estimated past
     * it fails in its first pages with one line. 0, the default, sets none:
     * what DuckDB keeps of the tables is bounded by the driver (it opens the
     * file anew past an eighth of the pool), and ten million sessions
     * completed. For a disk or a file size of the user's own choosing.
     * @default 0
     */
    duckdbMaxSessions: 0,
  },
  alerts: {
    /**
     * Where the daemon POSTs a JSON message (`text` plus fields, docs/alerts.md)
     * when a run fails or recovers, it backs off, a lease is taken over, the
     * webhook stream goes quiet, a verify finds drift, a backfill ends or
     * refresh checks fall behind the staleness bound: a URL, `{ env: NAME }`,
     * or a list of them. Env `IVS_ALERTS_URL` (several
     * separated by spaces) wins over it.
     * @default undefined (no alerts)
     */
    url: undefined as AlertUrlRef | readonly AlertUrlRef[] | undefined,
    /**
     * Retries of a message the receiver did not take (a network error, 408,
     * 429, 5xx), with a doubling back-off.
     * @default 4
     */
    retries: 4,
    /** Time-out of one attempt, in milliseconds. @default 10000 */
    timeoutMs: 10_000,
    /**
     * The staleness bound of the refresh: when the oldest check of an
     * account's non-final sessions is older than this many seconds, the
     * budget is deferring checks past what the refresh promises, and the
     * daemon alerts (`checks_stale`, then `checks_fresh`).
     * @default undefined (three of the account's schedule gaps, plus
     * `refresh.maxIntervalSeconds` while the webhook stream is healthy)
     */
    staleCheckSeconds: undefined as number | undefined,
  },
  verify: {
    /**
     * Most requests one `ivsync verify` spends (the daemon's too): ten seconds of the service's limit. Flag `--budget`,
     * env `IVS_VERIFY_BUDGET`. @default 100
     */
    budget: 100,
    /**
     * How often the daemon verifies each account after its sync: a period
     * since the last verify (`6h`, `1d`) or a cron expression. Off when unset.
     * Flag `--verify-every`, env `IVS_VERIFY_EVERY`.
     * @default undefined
     */
    every: undefined as string | undefined,
  },
});

export type Defaults = typeof DEFAULTS;

/** The sections of the config file (its object members). */
export type SectionName = {
  [K in keyof Defaults]: Defaults[K] extends readonly unknown[] ? never : Defaults[K] extends object ? K : never;
}[keyof Defaults];

/** Every member of the config file as a dotted path: `db`, `crawl.windowSeconds`, ... */
export type MemberPath = {
  [K in keyof Defaults & string]: K extends SectionName ? `${K}.${keyof Defaults[K] & string}` : K;
}[keyof Defaults & string];
