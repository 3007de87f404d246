import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../errors.js';
import type { AccountConfig, Config } from './config.js';
import { parseTime } from './parse-time.js';
import { Secret } from './secret.js';

/** The global options as the CLI parsed them (flags only; undefined when not given). */
export interface ConfigFlags {
  baseUrl?: string | undefined;
  token?: string | undefined;
  apiVersion?: string | undefined;
  db?: string | undefined;
  config?: string | undefined;
  rate?: number | undefined;
  json?: boolean | undefined;
  verbose?: boolean | undefined;
  since?: string | undefined;
}

export interface ConfigSources {
  flags: ConfigFlags;
  env: Readonly<Record<string, string | undefined>>;
  /** Reads the config file; injected so tests need no files. */
  readFile?: (path: string) => string;
  fileExists?: (path: string) => boolean;
}

export const DEFAULT_CONFIG_FILE = './config/ivsync.json';
export const DEFAULT_DB = 'sqlite:./data/ivsync.sqlite';

const apiVersion = z.enum(['1.4', '2']);
const positive = z.number().positive();

const accountSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only'),
  tokenEnv: z.string().min(1).optional(),
  baseUrl: z.string().url().optional(),
  apiVersion: apiVersion.optional(),
  rate: positive.optional(),
  webhooks: z.array(z.string().min(1)).optional(),
});

const secretRef = z.union([
  z.string().min(1),
  z.strictObject({ env: z.string().min(1) }),
]);

/** The config file (JSON). Every member is optional; defaults are in the README and config/ivsync.example.json. */
const fileSchema = z.strictObject({
  $schema: z.string().optional(),
  baseUrl: z.string().url().optional(),
  apiVersion: apiVersion.optional(),
  db: z.string().min(1).optional(),
  rate: positive.optional(),
  accounts: z.array(accountSchema).min(1).optional(),
  crawl: z
    .strictObject({
      windowSeconds: z.number().int().min(60).optional(),
      concurrency: z.number().int().min(1).max(256).optional(),
      overlapSeconds: z.number().int().min(0).optional(),
      since: z.union([z.string(), z.number()]).optional(),
      resources: z.array(z.enum(['authentications', 'fingerprints'])).min(1).optional(),
      splitAfterPages: z.number().int().min(1).optional(),
    })
    .optional(),
  http: z
    .strictObject({
      timeoutMs: z.number().int().min(100).optional(),
      acceptLanguage: z.enum(['en', 'ja']).optional(),
      retryLimit: z.number().int().min(0).max(50).optional(),
      retryBaseMs: z.number().int().min(1).optional(),
      retryMaxMs: z.number().int().min(1).optional(),
    })
    .optional(),
  v2: z
    .strictObject({
      apiVersionHeader: z.string().min(1).optional(),
      paths: z.record(z.string(), z.string().startsWith('/')).optional(),
    })
    .optional(),
  webhooks: z
    .strictObject({
      path: z.string().startsWith('/').optional(),
      secret: secretRef.optional(),
      secrets: z.record(z.string(), secretRef).optional(),
      maxBodyBytes: z.number().int().min(1024).optional(),
      requestTimeoutMs: z.number().int().min(100).max(600_000).optional(),
      maxConnections: z.number().int().min(1).max(100_000).optional(),
    })
    .optional(),
  daemon: z
    .strictObject({
      schedule: z.string().min(1).optional(),
      timezone: z.string().min(1).optional(),
    })
    .optional(),
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).optional(),
});

type FileConfig = z.infer<typeof fileSchema>;

function readConfigFile(sources: ConfigSources): { path: string | undefined; file: FileConfig } {
  const explicit = sources.flags.config ?? sources.env.IVS_CONFIG;
  const exists = sources.fileExists ?? existsSync;
  const path = explicit ?? (exists(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined);
  if (path === undefined) return { path, file: {} };
  let text: string;
  try {
    text = (sources.readFile ?? ((p) => readFileSync(p, 'utf8')))(path);
  } catch (error) {
    throw new UserError('CONFIG_UNREADABLE', `cannot read config file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UserError('CONFIG_INVALID', `config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    throw new UserError('CONFIG_INVALID', `config file ${path}: ${where}: ${issue.message}`);
  }
  return { path, file: parsed.data };
}

function envNumber(env: ConfigSources['env'], name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    throw new UserError('CONFIG_INVALID', `${name} must be a positive number, got '${text}'`);
  }
  return value;
}

function parseApiVersion(value: string | undefined, from: string): '1.4' | '2' | undefined {
  if (value === undefined) return undefined;
  if (value === '1.4' || value === '2') return value;
  if (value === '2.0.0' || value === '2.0') return '2';
  throw new UserError('CONFIG_INVALID', `${from} must be 1.4 or 2, got '${value}'`);
}

function resolveSecret(ref: string | { env: string } | undefined, env: ConfigSources['env']): Secret | undefined {
  if (ref === undefined) return undefined;
  if (typeof ref === 'string') return new Secret(ref);
  const value = env[ref.env];
  return value ? new Secret(value) : undefined;
}

/**
 * Loads flags, environment and config file once (precedence flag > env > file >
 * default), validates them, and returns a frozen Config.
 */
export function loadConfig(sources: ConfigSources): Config {
  const { flags, env } = sources;
  const { path, file } = readConfigFile(sources);

  const baseUrl = flags.baseUrl ?? env.IVS_BASE_URL ?? file.baseUrl;
  const version =
    parseApiVersion(flags.apiVersion, '--api-version') ??
    parseApiVersion(env.IVS_API_VERSION, 'IVS_API_VERSION') ??
    file.apiVersion ??
    '1.4';
  if (flags.rate !== undefined && !(flags.rate > 0)) {
    throw new UserError('CONFIG_INVALID', `--rate must be a positive number, got ${flags.rate}`);
  }
  const rate = flags.rate ?? envNumber(env, 'IVS_RATE') ?? file.rate ?? 10;

  const accountsInFile = file.accounts ?? [{ name: 'default' }];
  const single = accountsInFile.length === 1;
  const accounts: AccountConfig[] = accountsInFile.map((a, index) => {
    const tokenEnv = a.tokenEnv ?? (index === 0 ? 'IVS_API_TOKEN' : `IVS_API_TOKEN_${a.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`);
    // --token is for the one-account case; with several accounts each names its variable.
    const tokenText = (single ? flags.token : undefined) ?? env[tokenEnv];
    return Object.freeze({
      name: a.name,
      baseUrl: (single ? flags.baseUrl ?? env.IVS_BASE_URL : undefined) ?? a.baseUrl ?? baseUrl,
      token: tokenText ? new Secret(tokenText) : undefined,
      tokenEnv,
      apiVersion: (single ? parseApiVersion(flags.apiVersion, '--api-version') : undefined) ?? a.apiVersion ?? version,
      rate: (single ? flags.rate : undefined) ?? a.rate ?? rate,
      webhooks: Object.freeze([...(a.webhooks ?? [])]),
    });
  });
  const names = new Set<string>();
  for (const a of accounts) {
    if (names.has(a.name)) throw new UserError('CONFIG_INVALID', `account '${a.name}' is listed twice in ${path}`);
    names.add(a.name);
  }

  const sinceText = flags.since ?? file.crawl?.since;
  const secrets: Record<string, Secret> = {};
  for (const [uuid, ref] of Object.entries(file.webhooks?.secrets ?? {})) {
    const secret = resolveSecret(ref, env);
    if (secret) secrets[uuid] = secret;
  }

  return Object.freeze({
    db: flags.db ?? env.IVS_DB ?? file.db ?? DEFAULT_DB,
    json: flags.json ?? false,
    verbose: flags.verbose ?? false,
    configFile: path,
    accounts: Object.freeze(accounts),
    crawl: Object.freeze({
      windowSeconds: file.crawl?.windowSeconds ?? 604_800,
      concurrency: file.crawl?.concurrency ?? 24,
      overlapSeconds: file.crawl?.overlapSeconds ?? 86_400,
      since: sinceText === undefined ? undefined : parseTime(sinceText, '--since'),
      resources: Object.freeze(file.crawl?.resources ?? (['authentications', 'fingerprints'] as const)),
      splitAfterPages: file.crawl?.splitAfterPages ?? 4,
    }),
    http: Object.freeze({
      timeoutMs: file.http?.timeoutMs ?? 30_000,
      acceptLanguage: file.http?.acceptLanguage ?? 'en',
      retryLimit: file.http?.retryLimit ?? 8,
      retryBaseMs: file.http?.retryBaseMs ?? 500,
      retryMaxMs: file.http?.retryMaxMs ?? 30_000,
    }),
    v2: Object.freeze({
      apiVersionHeader: file.v2?.apiVersionHeader ?? '2.0.0',
      paths: Object.freeze({ ...(file.v2?.paths ?? {}) }),
    }),
    webhooks: Object.freeze({
      path: file.webhooks?.path ?? '/webhooks',
      secrets: Object.freeze(secrets),
      defaultSecret: env.IVS_WEBHOOK_SECRET ? new Secret(env.IVS_WEBHOOK_SECRET) : resolveSecret(file.webhooks?.secret, env),
      maxBodyBytes: file.webhooks?.maxBodyBytes ?? 1_048_576,
      requestTimeoutMs: file.webhooks?.requestTimeoutMs ?? 30_000,
      maxConnections: file.webhooks?.maxConnections ?? 256,
    }),
    daemon: Object.freeze({
      schedule: file.daemon?.schedule ?? '*/5 * * * *',
      timezone: file.daemon?.timezone ?? 'UTC',
    }),
    logLevel: file.logLevel ?? (flags.verbose ? 'debug' : 'info'),
  });
}
