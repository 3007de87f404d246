import { InputError, type InputSource } from '../errors.js';
import { alertUrlsOf } from './alert-urls.js';
import { checkSchedule, checkTimezone } from './check-schedule.js';
import { layerEnv, readEnvFile } from './env-file.js';
import { LOG_LEVELS, type AccountConfig, type Config, type LogLevel } from './config.js';
import { API_VERSIONS, isApiVersion, type ApiVersion, type ResourceName } from './constants.js';
import { DEFAULTS } from './defaults.js';
import { parseCadence } from './parse-cadence.js';
import { parseResources } from './parse-resources.js';
import { parseTime } from './parse-time.js';
import type { FileConfig } from './file-schema.js';
import { quotedValue, shownValue } from './quoted-value.js';
import { readConfigFile, type ConfigFileAccess } from './read-config-file.js';
import { Secret } from './secret.js';
import { checkWebhookSecret } from './webhook-secret-rule.js';

/** The options as the CLI parsed them (flags only; undefined when not given). */
export interface ConfigFlags {
  baseUrl?: string | undefined;
  token?: string | undefined;
  apiVersion?: string | undefined;
  db?: string | undefined;
  config?: string | undefined;
  rate?: number | undefined;
  json?: boolean | undefined;
  /** Debug logs whatever --log-level, IVS_LOG_LEVEL or the file say. */
  verbose?: boolean | undefined;
  logLevel?: string | undefined;
  since?: string | undefined;
  resources?: string | undefined;
  schedule?: string | undefined;
  timezone?: string | undefined;
  /** verify --budget */
  budget?: number | undefined;
  /** daemon --verify-every */
  verifyEvery?: string | undefined;
  /** sync and daemon --refresh-budget */
  refreshBudget?: number | undefined;
}

export interface ConfigSources extends ConfigFileAccess {
  flags: ConfigFlags;
  env: Readonly<Record<string, string | undefined>>;
  /** Milliseconds since the epoch; times more than a day after it are refused. */
  clock: () => number;
}

type FileAccount = NonNullable<FileConfig['accounts']>[number];

/** A value and where it came from, so that a check of it can name its source. */
interface Sourced<T> {
  value: T;
  source: InputSource;
}

/** The first of flag, env, file that holds a value (an empty variable counts as unset). */
function firstOf<T>(...candidates: ReadonlyArray<Sourced<T | undefined> | undefined>): Sourced<T> | undefined {
  for (const c of candidates) {
    if (c !== undefined && c.value !== undefined && c.value !== '') return c as Sourced<T>;
  }
  return undefined;
}

function apiVersionOf({ value, source }: Sourced<string>): ApiVersion {
  if (isApiVersion(value)) return value;
  // The service's own spelling of the v2 version header.
  if (value === '2.0.0' || value === '2.0') return '2';
  const problem = `must be ${API_VERSIONS.join(' or ')}, got ${quotedValue(value)}`;
  throw new InputError('BAD_API_VERSION', problem, { source, value: shownValue(value) });
}

function rateOf({ value, source }: Sourced<string | number>): number {
  const rate = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(rate) || rate <= 0) {
    const problem = `must be a positive number of requests per second, got ${quotedValue(value)}`;
    throw new InputError('BAD_RATE', problem, { source, value: shownValue(value) });
  }
  return rate;
}

function budgetOf({ value, source }: Sourced<string | number>): number {
  const budget = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(budget) || budget < 1) {
    const problem = `must be a whole number of requests, at least 1, got ${quotedValue(value)}`;
    throw new InputError('BAD_BUDGET', problem, { source, value: shownValue(value) });
  }
  return budget;
}

function shareOf({ value, source }: Sourced<string | number>): number {
  const share = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(share) || share <= 0 || share > 1)
    throw new InputError(
      'BAD_SHARE',
      `must be a share of the token above 0 and at most 1 (0.1 is a tenth), got '${value}'`,
      { source, value },
    );
  return share;
}

function logLevelOf({ value, source }: Sourced<string>): LogLevel {
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  const problem = `must be one of ${LOG_LEVELS.join(', ')}, got ${quotedValue(value)}`;
  throw new InputError('BAD_LOG_LEVEL', problem, { source, value: shownValue(value) });
}

/** A webhook secret of the file (itself, or the variable it names), held to the one length rule. */
function resolveSecret(
  ref: string | { readonly env: string } | undefined,
  env: ConfigSources['env'],
  key: string,
  file: string,
): Secret | undefined {
  if (ref === undefined) return undefined;
  const text = typeof ref === 'string' ? ref : env[ref.env];
  if (!text) return undefined;
  checkWebhookSecret(text, typeof ref === 'string' ? { kind: 'config', key, file } : { kind: 'env', name: ref.env });
  return new Secret(text);
}

/**
 * An account's schedule: its own members, each falling back to the daemon's.
 * A flag or variable wins over them only with one account (`flagWins`): a
 * global flag cannot say which of several accounts it means.
 */
function accountSchedule(
  account: FileAccount,
  index: number,
  daemon: { expression: string; timezone: string },
  flagWins: { expression: boolean; timezone: boolean },
  file: string,
): { readonly expression: string; readonly timezone: string } {
  const source = (key: string) => ({ kind: 'config', key: `accounts.${index}.${key}`, file }) as const;
  const expression =
    account.schedule === undefined || flagWins.expression
      ? daemon.expression
      : checkSchedule(account.schedule, source('schedule'));
  const timezone =
    account.timezone === undefined || flagWins.timezone
      ? daemon.timezone
      : checkTimezone(account.timezone, source('timezone'));
  return Object.freeze({ expression, timezone });
}

function envSecret(text: string): Secret {
  checkWebhookSecret(text, { kind: 'env', name: 'IVS_WEBHOOK_SECRET' });
  return new Secret(text);
}

/**
 * Loads flags, environment, env file and config file once, validates them, and
 * returns a frozen Config. Every option follows flag > env > env file (ivsync.env
 * beside the config file) > config file > DEFAULTS; each
 * value is checked where it is resolved, and a bad one is reported with its
 * source (`--since`, `IVS_SINCE`, or `crawl.since` of the file).
 *
 * Accounts: with one account, flags and env also win over its members in the
 * file; with several, a member set on an account wins, since a global flag
 * cannot say which account it means.
 */
export function loadConfig(sources: ConfigSources): Config {
  const { flags } = sources;
  const { path, file } = readConfigFile(flags.config, sources.env.IVS_CONFIG, sources);
  const envFile = readEnvFile(path, sources);
  const env = layerEnv(sources.env, envFile.vars);
  // A bad value read from the env file names the file, so the user knows where to fix it.
  const envName = (name: string) =>
    env[name] === sources.env[name] || envFile.path === undefined ? name : `${name} in ${envFile.path}`;
  const nowSeconds = sources.clock() / 1000;
  const flag = <T>(name: string, value: T | undefined): Sourced<T | undefined> => ({
    value,
    source: { kind: 'flag', name },
  });
  const fromEnv = (name: string): Sourced<string | undefined> => ({
    value: env[name],
    source: { kind: 'env', name: envName(name) },
  });
  const inFile = <T>(key: string, value: T | undefined): Sourced<T | undefined> | undefined =>
    path === undefined ? undefined : { value, source: { kind: 'config', key, file: path } };

  const baseUrlFlagOrEnv = firstOf(flag('--base-url', flags.baseUrl), fromEnv('IVS_BASE_URL'))?.value;
  const versionFlagOrEnv = firstOf(flag('--api-version', flags.apiVersion), fromEnv('IVS_API_VERSION'));
  const rateFlagOrEnv = firstOf<string | number>(flag('--rate', flags.rate), fromEnv('IVS_RATE'));
  const apiVersion = versionFlagOrEnv ? apiVersionOf(versionFlagOrEnv) : (file.apiVersion ?? DEFAULTS.apiVersion);
  const rate = rateFlagOrEnv ? rateOf(rateFlagOrEnv) : (file.rate ?? DEFAULTS.rate);
  const baseUrl = baseUrlFlagOrEnv ?? file.baseUrl ?? DEFAULTS.baseUrl;

  const accountsInFile: ReadonlyArray<FileAccount> = file.accounts ?? DEFAULTS.accounts;
  const single = accountsInFile.length === 1;
  const accounts: AccountConfig[] = accountsInFile.map((a, index) => {
    const tokenEnv =
      a.tokenEnv ??
      (index === 0 ? 'IVS_API_TOKEN' : `IVS_API_TOKEN_${a.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`);
    // --token is for the one-account case; with several accounts each names its variable.
    const tokenText = (single ? flags.token : undefined) ?? env[tokenEnv];
    return Object.freeze({
      name: a.name,
      baseUrl: single ? (baseUrlFlagOrEnv ?? a.baseUrl ?? baseUrl) : (a.baseUrl ?? baseUrl),
      token: tokenText ? new Secret(tokenText) : undefined,
      tokenEnv,
      apiVersion: single && versionFlagOrEnv ? apiVersion : (a.apiVersion ?? apiVersion),
      rate: single && rateFlagOrEnv ? rate : (a.rate ?? rate),
      webhooks: Object.freeze([...(a.webhooks ?? [])]),
      // Resolved below, once the daemon's own schedule is known.
      schedule: { expression: '', timezone: '' },
    });
  });
  const names = new Set<string>();
  for (const [index, a] of accounts.entries()) {
    if (names.has(a.name)) {
      throw new InputError('CONFIG_INVALID', `account '${a.name}' is listed twice`, {
        source: { kind: 'config', key: `accounts.${index}.name`, file: path ?? '' },
        value: a.name,
      });
    }
    names.add(a.name);
  }

  const since = firstOf<string | number>(
    flag('--since', flags.since),
    fromEnv('IVS_SINCE'),
    inFile('crawl.since', file.crawl?.since),
  );
  const resources = firstOf(flag('--resources', flags.resources), fromEnv('IVS_RESOURCES'));
  const schedule = firstOf(
    flag('--schedule', flags.schedule),
    fromEnv('IVS_SCHEDULE'),
    inFile('daemon.schedule', file.daemon?.schedule),
  );
  const timezone = firstOf(
    flag('--timezone', flags.timezone),
    fromEnv('IVS_TIMEZONE'),
    inFile('daemon.timezone', file.daemon?.timezone),
  );
  const logLevel = firstOf(flag('--log-level', flags.logLevel), fromEnv('IVS_LOG_LEVEL'));
  const budget = firstOf<string | number>(flag('--budget', flags.budget), fromEnv('IVS_VERIFY_BUDGET'));
  const refreshBudget = firstOf<string | number>(
    flag('--refresh-budget', flags.refreshBudget),
    fromEnv('IVS_REFRESH_BUDGET'),
  );
  const budgetShare = firstOf<string | number>(fromEnv('IVS_REFRESH_BUDGET_SHARE'));
  const verifyEvery = firstOf(
    flag('--verify-every', flags.verifyEvery),
    fromEnv('IVS_VERIFY_EVERY'),
    inFile('verify.every', file.verify?.every),
  );

  const daemonSchedule = {
    expression: schedule === undefined ? DEFAULTS.daemon.schedule : checkSchedule(schedule.value, schedule.source),
    timezone: timezone === undefined ? DEFAULTS.daemon.timezone : checkTimezone(timezone.value, timezone.source),
  };
  // With one account, --schedule and --timezone (or their variables) win over its members, as --rate does.
  const given = (s: Sourced<string> | undefined) => single && s !== undefined && s.source.kind !== 'config';
  const wins = { expression: given(schedule), timezone: given(timezone) };
  const scheduled = accounts.map((a, index) =>
    Object.freeze({ ...a, schedule: accountSchedule(accountsInFile[index]!, index, daemonSchedule, wins, path ?? '') }),
  );

  const secrets: Record<string, Secret> = {};
  for (const [uuid, ref] of Object.entries(file.webhooks?.secrets ?? DEFAULTS.webhooks.secrets)) {
    const secret = resolveSecret(ref, env, `webhooks.secrets.${uuid}`, path ?? '');
    if (secret) secrets[uuid] = secret;
  }

  return Object.freeze({
    db: firstOf(flag('--db', flags.db), fromEnv('IVS_DB'))?.value ?? file.db ?? DEFAULTS.db,
    json: flags.json ?? false,
    verbose: flags.verbose ?? false,
    configFile: path,
    accounts: Object.freeze(scheduled),
    crawl: Object.freeze({
      windowSeconds: file.crawl?.windowSeconds ?? DEFAULTS.crawl.windowSeconds,
      concurrency: file.crawl?.concurrency ?? DEFAULTS.crawl.concurrency,
      processConcurrency: file.crawl?.processConcurrency ?? DEFAULTS.crawl.processConcurrency,
      overlapSeconds: file.crawl?.overlapSeconds ?? DEFAULTS.crawl.overlapSeconds,
      since: since === undefined ? undefined : parseTime(since.value, since.source, nowSeconds),
      resources: Object.freeze<ResourceName[]>(
        resources === undefined
          ? [...(file.crawl?.resources ?? DEFAULTS.crawl.resources)]
          : parseResources(resources.value, resources.source),
      ),
      splitAfterPages: file.crawl?.splitAfterPages ?? DEFAULTS.crawl.splitAfterPages,
      maxWindows: file.crawl?.maxWindows ?? DEFAULTS.crawl.maxWindows,
    }),
    http: Object.freeze({
      timeoutMs: file.http?.timeoutMs ?? DEFAULTS.http.timeoutMs,
      acceptLanguage: file.http?.acceptLanguage ?? DEFAULTS.http.acceptLanguage,
      retryLimit: file.http?.retryLimit ?? DEFAULTS.http.retryLimit,
      retryBaseMs: file.http?.retryBaseMs ?? DEFAULTS.http.retryBaseMs,
      retryMaxMs: file.http?.retryMaxMs ?? DEFAULTS.http.retryMaxMs,
    }),
    v2: Object.freeze({
      apiVersionHeader: file.v2?.apiVersionHeader ?? DEFAULTS.v2.apiVersionHeader,
      paths: Object.freeze({ ...(file.v2?.paths ?? DEFAULTS.v2.paths) }),
    }),
    webhooks: Object.freeze({
      path: file.webhooks?.path ?? DEFAULTS.webhooks.path,
      secrets: Object.freeze(secrets),
      defaultSecret: env.IVS_WEBHOOK_SECRET
        ? envSecret(env.IVS_WEBHOOK_SECRET)
        : resolveSecret(file.webhooks?.secret ?? DEFAULTS.webhooks.secret, env, 'webhooks.secret', path ?? ''),
      maxBodyBytes: file.webhooks?.maxBodyBytes ?? DEFAULTS.webhooks.maxBodyBytes,
      requestTimeoutMs: file.webhooks?.requestTimeoutMs ?? DEFAULTS.webhooks.requestTimeoutMs,
      maxConnections: file.webhooks?.maxConnections ?? DEFAULTS.webhooks.maxConnections,
      healthySeconds: file.webhooks?.healthySeconds ?? DEFAULTS.webhooks.healthySeconds,
    }),
    daemon: Object.freeze({ schedule: daemonSchedule.expression, timezone: daemonSchedule.timezone }),
    refresh: Object.freeze({
      hotSeconds: file.refresh?.hotSeconds ?? DEFAULTS.refresh.hotSeconds,
      maxIntervalSeconds: file.refresh?.maxIntervalSeconds ?? DEFAULTS.refresh.maxIntervalSeconds,
      budgetShare:
        budgetShare === undefined ? (file.refresh?.budgetShare ?? DEFAULTS.refresh.budgetShare) : shareOf(budgetShare),
      maxRequestsPerRun:
        refreshBudget === undefined
          ? (file.refresh?.maxRequestsPerRun ?? DEFAULTS.refresh.maxRequestsPerRun)
          : budgetOf(refreshBudget),
    }),
    store: Object.freeze({
      retrySeconds: file.store?.retrySeconds ?? DEFAULTS.store.retrySeconds,
      duckdbMaxSessions: file.store?.duckdbMaxSessions ?? DEFAULTS.store.duckdbMaxSessions,
    }),
    verify: Object.freeze({
      budget: budget === undefined ? (file.verify?.budget ?? DEFAULTS.verify.budget) : budgetOf(budget),
      every: verifyEvery === undefined ? undefined : parseCadence(verifyEvery.value, verifyEvery.source),
    }),
    alerts: Object.freeze({
      urls: Object.freeze(alertUrlsOf(env.IVS_ALERTS_URL, file.alerts?.url, env, path ?? '')),
      retries: file.alerts?.retries ?? DEFAULTS.alerts.retries,
      timeoutMs: file.alerts?.timeoutMs ?? DEFAULTS.alerts.timeoutMs,
      staleCheckSeconds: file.alerts?.staleCheckSeconds ?? DEFAULTS.alerts.staleCheckSeconds,
    }),
    // --verbose asks for debug logs, whatever a file written for quiet cron runs says.
    logLevel: flags.verbose
      ? 'debug'
      : logLevel !== undefined
        ? logLevelOf(logLevel)
        : (file.logLevel ?? DEFAULTS.logLevel),
  });
}
