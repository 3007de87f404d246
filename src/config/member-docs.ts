import type { MemberPath, SectionName } from './defaults.js';

/** What a member of the config file does, as `ivsync init` comments it. */
export interface MemberDoc {
  /** One or more lines, each becomes a `#` comment above the member. */
  readonly text: string;
  /** Written commented out for a member without a default (DEFAULTS holds `undefined`). */
  readonly example?: unknown;
}

/**
 * The comment above every member in the file `ivsync init` writes. Typed by
 * MemberPath, so a member added to DEFAULTS without a line here does not compile.
 */
export const MEMBER_DOCS: Readonly<Record<MemberPath, MemberDoc>> = Object.freeze({
  baseUrl: {
    text: 'Service root; plain http:// only for loopback hosts. Required for commands that call the service.\nFlag --base-url, env IVS_BASE_URL (both win over this).',
    example: 'https://api.example.com',
  },
  apiVersion: { text: "Interface version: '1.4' or '2' (quoted: YAML reads 1.4 as a number). Flag --api-version, env IVS_API_VERSION." },
  db: { text: 'Target: sqlite:PATH, duckdb:PATH or postgres://user@host/db[?schema=NAME]. Flag --db, env IVS_DB.' },
  rate: { text: "Requests per second for each token; one bucket per token holds every request to it. Flag --rate, env IVS_RATE." },
  logLevel: { text: 'Log level: trace, debug, info, warn, error, fatal or silent. Flag --log-level, env IVS_LOG_LEVEL; --verbose means debug.' },
  accounts: {
    text:
      'Accounts, each with its own token and rate bucket; every row records its account name.\n' +
      'Members: name, tokenEnv (the variable holding its token; the first defaults to IVS_API_TOKEN,\n' +
      'the others to IVS_API_TOKEN_<NAME>), and baseUrl, apiVersion, rate to override the values above,\n' +
      'and schedule, timezone to override daemon.schedule and daemon.timezone for this account.',
  },
  'crawl.windowSeconds': {
    text: 'Size of the epoch windows the history is split into, in seconds. A window costs at least one\nrequest: sparse histories want large windows; dense windows are split while paging anyway.',
  },
  'crawl.concurrency': { text: 'Windows paged at once per account; the bucket, not this, holds the request rate.' },
  'crawl.overlapSeconds': {
    text: 'How far behind the high-water mark sync starts again, in seconds: devices that were offline\nupload sessions late with their original times. Raise it if devices stay offline longer than a day.',
  },
  'crawl.since': {
    text: 'Where the first sync of an empty target starts: ISO 8601 or epoch seconds. Flag --since, env IVS_SINCE.',
    example: '2024-01-01',
  },
  'crawl.resources': { text: 'What to crawl: authentications, fingerprints. Flag --resources, env IVS_RESOURCES (comma-separated).' },
  'crawl.splitAfterPages': { text: 'A window still paging after this many pages is split when workers are idle.' },
  'crawl.maxWindows': {
    text: 'Most windows one interval may be split into, per account and resource: each costs a request\nand a row, so a larger plan is refused as a likely mistake. Prefer a larger windowSeconds.',
  },
  'http.timeoutMs': { text: 'Per-request time-out in milliseconds.' },
  'http.acceptLanguage': { text: "Language of the service's display strings: en or ja." },
  'http.retryLimit': { text: 'Retries of a failed request (429, 5xx, resets, time-outs) after the first attempt.' },
  'http.retryBaseMs': { text: 'First retry delay in milliseconds; doubled per attempt, with full jitter.' },
  'http.retryMaxMs': { text: 'Longest retry delay in milliseconds.' },
  'v2.apiVersionHeader': { text: 'The Api-Version header sent on v2 requests.' },
  'v2.paths': { text: 'Overrides of v2 operation paths, e.g. { supportedCatalog: /v2/catalog } (see README).' },
  'webhooks.path': { text: 'Path the receiver takes deliveries at.' },
  'webhooks.secret': { text: 'Secret of webhooks without their own, 20 characters or more: text, or { env: NAME }. Env IVS_WEBHOOK_SECRET wins over it.' },
  'webhooks.secrets': { text: 'Secrets by webhook uuid, 20 characters or more each: { <uuid>: text } or { <uuid>: { env: NAME } }.' },
  'webhooks.maxBodyBytes': { text: 'Largest delivery body accepted, in bytes.' },
  'webhooks.requestTimeoutMs': { text: 'A request not fully arrived by then is answered 408 and its connection closed (milliseconds).' },
  'webhooks.maxConnections': { text: 'Open connections at most; beyond it the oldest idle or slow one is closed.' },
  'webhooks.healthySeconds': {
    text: 'The webhook stream is healthy while a delivery was accepted this recently (seconds): sync then leaves\nsessions a delivery updated to their back-off. When it goes quiet, sync polls them again.',
  },
  'refresh.hotSeconds': { text: 'Non-final sessions younger than this (seconds since creation) are hot: re-checked first, on every sync.' },
  'refresh.maxIntervalSeconds': {
    text: 'Sessions a healthy webhook stream keeps up to date are polled on a back-off doubling from one run up to\nthis (seconds); every other non-final session is checked as the budget allows.',
  },
  'refresh.budgetShare': {
    text: 'Share of the token one sync spends per account (of rate x schedule gap requests): what its pass leaves\nre-checks non-final sessions, all of them when that fits, else hot ones and then the stalest. Env IVS_REFRESH_BUDGET_SHARE.',
  },
  'refresh.maxRequestsPerRun': {
    text: 'The refresh budget in requests per sync and account (its resources share it), instead of budgetShare.\nFlag --refresh-budget, env IVS_REFRESH_BUDGET.',
    example: 300,
  },
  'daemon.schedule': {
    text: "node-cron expression, 5 fields or 6 with seconds first; quote it (YAML reads a leading * as an alias).\nFlag --schedule, env IVS_SCHEDULE.",
  },
  'daemon.timezone': { text: 'IANA time zone the schedule is read in. Flag --timezone, env IVS_TIMEZONE.' },
  'alerts.url': {
    text:
      'Where the daemon POSTs a JSON alert (text plus fields) when a run fails or recovers, it backs off, a lease\n' +
      'is taken over, the webhook stream goes quiet, verify finds drift or a backfill ends: a URL, { env: NAME },\n' +
      'or a list of them (a Slack or Mattermost incoming webhook shows the text). Env IVS_ALERTS_URL wins over it.',
    example: { env: 'IVS_ALERTS_URL' },
  },
  'alerts.retries': {
    text: 'Retries of an alert the receiver did not take, with a doubling back-off; never holds a run back.',
  },
  'alerts.timeoutMs': { text: 'Time-out of one alert attempt, in milliseconds.' },
  'store.retrySeconds': {
    text:
      'How long a transaction that met a passing fault of the target (a database restart, a dropped connection,\n' +
      'a serialization failure) is tried again before the run fails, in seconds; 0 fails at once.',
  },
  'verify.budget': { text: 'Most requests one verify spends on its sample of stored windows. Flag --budget, env IVS_VERIFY_BUDGET.' },
  'verify.every': {
    text: "How often the daemon verifies each account, right after its sync: a period since the last verify\n(6h, 1d, 2w) or a cron expression ('0 3 * * *'). Off when unset. Flag --verify-every, env IVS_VERIFY_EVERY.",
    example: '1d',
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
