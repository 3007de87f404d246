import type { MemberPath, SectionName } from './defaults.js';

/**
 * What a member of the config file does, as `ivsync init` comments it and
 * docs/configuration.md lists it (both generated from here).
 */
export interface MemberDoc {
  /** One or more lines, each becomes a `#` comment above the member. */
  readonly text: string;
  /** Written commented out for a member without a default (DEFAULTS holds `undefined`). */
  readonly example?: unknown;
  /** The flag that sets it (wins over env, file and default), and the commands that take the flag when not all do. */
  readonly flag?: string;
  readonly flagCommands?: string;
  /** The environment variable that sets it (wins over the file and the default). */
  readonly env?: string;
}

/**
 * The comment above every member in the file `ivsync init` writes. Typed by
 * MemberPath, so a member added to DEFAULTS without a line here does not compile.
 */
export const MEMBER_DOCS: Readonly<Record<MemberPath, MemberDoc>> = Object.freeze({
  baseUrl: {
    text: 'Service root; plain http:// only for loopback hosts. Required for commands that call the service.',
    example: 'https://api.example.com',
    flag: '--base-url',
    env: 'IVS_BASE_URL',
  },
  apiVersion: {
    text: "Interface version: '1.4' or '2' (quoted: YAML reads 1.4 as a number).",
    flag: '--api-version',
    env: 'IVS_API_VERSION',
  },
  db: {
    text: 'Target: sqlite:PATH, duckdb:PATH or postgres://user@host/db[?schema=NAME].',
    flag: '--db',
    env: 'IVS_DB',
  },
  rate: {
    text: 'Requests per second for each token; one bucket per token holds every request to it.',
    flag: '--rate',
    env: 'IVS_RATE',
  },
  logLevel: {
    text: 'Log level: trace, debug, info, warn, error, fatal or silent; --verbose means debug whatever this says.',
    flag: '--log-level',
    env: 'IVS_LOG_LEVEL',
  },
  accounts: {
    text:
      'Accounts, each with its own token and rate bucket; every row records its account name.\n' +
      'Members: name, tokenEnv (the variable holding its token; the first defaults to IVS_API_TOKEN,\n' +
      'the others to IVS_API_TOKEN_<NAME>), baseUrl, apiVersion, rate to override the values above, webhooks\n' +
      '(uuids of the webhooks it owns: their deliveries are written under it), and schedule, timezone to\n' +
      'override daemon.schedule and daemon.timezone for this account (docs/schedules.md). With several accounts,\n' +
      'a member set on an account wins over the flag and the variable too, since a flag cannot say which account\n' +
      'it means.',
  },
  'crawl.windowSeconds': {
    text:
      'Size of the epoch windows the history is split into, in seconds: the grain of checkpoints, refreshes and\n' +
      'sealing. Adjacent windows share a request stream, so sparse histories cost no partial page per window;\n' +
      'dense windows are split while paging.',
  },
  'crawl.concurrency': {
    text:
      'Most request streams at once per account. Streams are added only while the bucket has room: the ' +
      'bucket,\nnot this, holds the request rate, up to a round trip of about 6 s at 10 requests/s (rate x round\n' +
      'trip streams are needed). When this bound holds the rate below the limit, the run says so once (a\n' +
      'warning naming the setting).',
  },
  'crawl.processConcurrency': {
    text:
      'Most request streams at once in the process, over all accounts. Each account may always page with one\n' +
      'stream and grows to an equal share of this while others page; one account alone may use all of it.\n' +
      'A stream waiting on the service holds next to nothing, and the streams asking at once are bounded\n' +
      'apart: 128 pages between response and commit, plus twice what the pages arriving need (each its\n' +
      'round trip and its slot). So this may be as large as latency times accounts needs (rate x round trip each).',
  },
  'crawl.overlapSeconds': {
    text:
      'How far behind the high-water mark sync starts again, in seconds: devices that were offline\nupload ' +
      'sessions late with their original times. Raise it if devices stay offline longer than a day.',
  },
  'crawl.since': {
    text: 'Where the first sync of an empty target starts: ISO 8601 or epoch seconds.',
    example: '2024-01-01',
    flag: '--since',
    flagCommands: 'sync, daemon',
    env: 'IVS_SINCE',
  },
  'crawl.resources': {
    text: 'What to crawl: authentications, fingerprints (comma-separated in the flag and the variable).',
    flag: '--resources',
    flagCommands: 'backfill, sync, daemon',
    env: 'IVS_RESOURCES',
  },
  'crawl.splitAfterPages': {
    text: 'Pages a stream fetches before its current window may be split for another stream.',
  },
  'crawl.maxWindows': {
    text:
      'Most windows one interval may be split into, per account and resource: each costs a request\nand a row, ' +
      'so a larger plan is refused as a likely mistake. Prefer a larger windowSeconds.',
  },
  'http.timeoutMs': { text: 'Per-request time-out in milliseconds.' },
  'http.acceptLanguage': { text: "Language of the service's display strings: en or ja." },
  'http.retryLimit': { text: 'Retries of a failed request (429, 5xx, resets, time-outs) after the first attempt.' },
  'http.retryBaseMs': { text: 'First retry delay in milliseconds; doubled per attempt, with full jitter.' },
  'http.retryMaxMs': { text: 'Longest retry delay in milliseconds.' },
  'v2.apiVersionHeader': { text: 'The Api-Version header sent on v2 requests.' },
  'v2.paths': { text: 'Overrides of v2 operation paths, e.g. { supportedCatalog: /v2/catalog } (see docs/api-v2.md).' },
  'webhooks.path': { text: 'Path the receiver takes deliveries at.' },
  'webhooks.secret': {
    text: 'Secret of webhooks without their own, 20 characters or more: text, or { env: NAME }.',
    env: 'IVS_WEBHOOK_SECRET',
  },
  'webhooks.secrets': {
    text: 'Secrets by webhook uuid, 20 characters or more each: { <uuid>: text } or { <uuid>: { env: NAME } }.',
  },
  'webhooks.maxBodyBytes': { text: 'Largest delivery body accepted, in bytes.' },
  'webhooks.requestTimeoutMs': {
    text: 'A request not fully arrived by then is answered 408 and its connection closed (milliseconds).',
  },
  'webhooks.maxConnections': { text: 'Open connections at most; beyond it the oldest idle or slow one is closed.' },
  'webhooks.healthySeconds': {
    text:
      'The webhook stream is healthy while a delivery was accepted this recently (seconds): sync then ' +
      'leaves\nsessions a delivery updated to their back-off. When it goes quiet, sync polls them again.',
  },
  'refresh.hotSeconds': {
    text: 'Non-final sessions younger than this (seconds since creation) are hot: re-checked first, on every sync.',
  },
  'refresh.maxIntervalSeconds': {
    text:
      'Sessions a healthy webhook stream keeps up to date are polled on a back-off doubling from one run up ' +
      'to\nthis (seconds); every other non-final session is checked as the budget allows.',
  },
  'refresh.budgetShare': {
    text:
      'Share of the token one sync spends per account (of rate x schedule gap requests): what its passes ' +
      'leave\nre-checks non-final sessions, all of them when that fits, else hot ones and then the stalest.',
    env: 'IVS_REFRESH_BUDGET_SHARE',
  },
  'refresh.maxRequestsPerRun': {
    text: 'The refresh budget in requests per sync and account (its resources share it), instead of budgetShare.',
    example: 300,
    flag: '--refresh-budget',
    flagCommands: 'sync, daemon',
    env: 'IVS_REFRESH_BUDGET',
  },
  'daemon.schedule': {
    text: 'node-cron expression, 5 fields or 6 with seconds first; quote it (YAML reads a leading * as an alias).',
    flag: '--schedule',
    flagCommands: 'daemon',
    env: 'IVS_SCHEDULE',
  },
  'daemon.timezone': {
    text: 'IANA time zone the schedule is read in.',
    flag: '--timezone',
    flagCommands: 'daemon',
    env: 'IVS_TIMEZONE',
  },
  'alerts.url': {
    text:
      'Where the daemon POSTs a JSON alert (text plus fields) when a run fails or recovers, it backs off, a lease\n' +
      'is taken over, the webhook stream goes quiet, verify finds drift, a backfill ends or refresh checks\n' +
      'fall behind the staleness bound: a URL, { env: NAME },\n' +
      'or a list of them (a Slack or Mattermost incoming webhook shows the text). Several in the variable are\n' +
      'separated by spaces or commas (docs/alerts.md).',
    example: { env: 'IVS_ALERTS_URL' },
    env: 'IVS_ALERTS_URL',
  },
  'alerts.retries': {
    text: 'Retries of an alert the receiver did not take, with a doubling back-off; never holds a run back.',
  },
  'alerts.timeoutMs': { text: 'Time-out of one alert attempt, in milliseconds.' },
  'alerts.staleCheckSeconds': {
    text:
      "The staleness bound: the daemon alerts when the oldest check of an account's non-final sessions is older\n" +
      "than this (the refresh budget defers checks past it). Default: three of the account's schedule gaps, plus\n" +
      'refresh.maxIntervalSeconds while the webhook stream is healthy (docs/alerts.md).',
  },
  'store.retrySeconds': {
    text:
      'How long a transaction that met a passing fault of the target (a database restart, a dropped connection,\n' +
      'a serialization failure) is tried again before the run fails, in seconds; 0 fails at once.',
  },
  'store.duckdbMaxSessions': {
    text:
      'Most sessions a DuckDB target is let grow to: a backfill estimated past it fails in its first pages with\n' +
      'one line, before it writes hours into the file. 0: no limit.',
  },
  'verify.budget': {
    text: "Most requests one verify spends on its sample of stored windows (the daemon's verify too).",
    flag: '--budget',
    flagCommands: 'verify',
    env: 'IVS_VERIFY_BUDGET',
  },
  'verify.every': {
    text:
      'How often the daemon verifies each account, right after its sync: a period since the last verify\n(6h, ' +
      "1d, 2w) or a cron expression ('0 3 * * *'). Off when unset.",
    example: '1d',
    flag: '--verify-every',
    flagCommands: 'daemon',
    env: 'IVS_VERIFY_EVERY',
  },
});

/** The comment above each section of the file. */
export const SECTION_DOCS: Readonly<Record<SectionName, string>> = Object.freeze({
  crawl: 'How the history is split into windows and paged.',
  http: 'Requests to the service.',
  v2: 'The v2 interface (apiVersion 2).',
  webhooks: 'The webhook receiver (ivsync webhooks serve, ivsync daemon --port).',
  daemon: 'ivsync daemon: when sync runs.',
  refresh: 'How sync re-checks sessions whose result is not final yet.',
  store: 'The target database.',
  verify: 'ivsync verify: checking the copy against the service without crawling it all again.',
  alerts: 'ivsync daemon: messages to people when its state changes (docs/alerts.md).',
});

/**
 * "Flag --since (sync, daemon), env IVS_SINCE.": what sets a member besides the file, or undefined when nothing does.
 */
export function sourcesLine(doc: MemberDoc): string | undefined {
  const flag =
    doc.flag === undefined ? undefined : `flag ${doc.flag}${doc.flagCommands ? ` (${doc.flagCommands})` : ''}`;
  const env = doc.env === undefined ? undefined : `env ${doc.env}`;
  const parts = [flag, env].filter((part) => part !== undefined);
  if (parts.length === 0) return undefined;
  const line = `${parts.join(', ')}.`;
  return `${line.charAt(0).toUpperCase()}${line.slice(1)}`;
}
