import type { z as Zod } from 'zod';
import { zod } from './lazy-packages.js';
import { API_VERSIONS, RESOURCES } from './constants.js';
import { LOG_LEVELS } from './config.js';

/** The config file's schema, built on first use (zod is loaded then: see lazy-packages.ts). */
function buildFileSchema() {
  const { z } = zod();
  /** YAML reads an unquoted 1.4 or 2 as a number: take it as the version it spells. */
  const apiVersion = z.preprocess(
    (value) => (value === 1.4 || value === 2 ? String(value) : value),
    z.enum(API_VERSIONS),
  );
  const positive = z.number().positive();

  const accountSchema = z.strictObject({
    name: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only'),
    tokenEnv: z.string().min(1).optional(),
    baseUrl: z.string().url().optional(),
    apiVersion: apiVersion.optional(),
    rate: positive.optional(),
    webhooks: z.array(z.string().min(1)).optional(),
    schedule: z.string().min(1).optional(),
    timezone: z.string().min(1).optional(),
  });

  const secretRef = z.union([z.string().min(1), z.strictObject({ env: z.string().min(1) })]);
  /** The loader checks the URL itself, so that an error never shows it whole (it may carry a secret). */
  const alertUrl = z.union([z.string().min(1), z.strictObject({ env: z.string().min(1) })]);

  /**
   * The config file, JSON or YAML. Every member is optional; the defaults are
   * DEFAULTS (defaults.ts). Ranges are checked here; times, the schedule and the
   * time zone by the loader, which names their source.
   */
  return z.strictObject({
    $schema: z.string().optional(),
    baseUrl: z.string().url().optional(),
    apiVersion: apiVersion.optional(),
    db: z.string().min(1).optional(),
    rate: positive.optional(),
    logLevel: z.enum(LOG_LEVELS).optional(),
    accounts: z.array(accountSchema).min(1).optional(),
    crawl: z
      .strictObject({
        windowSeconds: z.number().int().min(60).optional(),
        concurrency: z.number().int().min(1).max(256).optional(),
        processConcurrency: z.number().int().min(1).max(4096).optional(),
        overlapSeconds: z.number().int().min(0).optional(),
        since: z.union([z.string(), z.number()]).optional(),
        resources: z.array(z.enum(RESOURCES)).min(1).optional(),
        splitAfterPages: z.number().int().min(1).optional(),
        maxWindows: z.number().int().min(1).optional(),
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
        healthySeconds: z.number().int().min(1).optional(),
      })
      .optional(),
    daemon: z
      .strictObject({
        schedule: z.string().min(1).optional(),
        timezone: z.string().min(1).optional(),
      })
      .optional(),
    refresh: z
      .strictObject({
        hotSeconds: z.number().int().min(0).optional(),
        maxIntervalSeconds: z.number().int().min(1).optional(),
        budgetShare: z.number().gt(0).max(1).optional(),
        maxRequestsPerRun: z.number().int().min(1).optional(),
      })
      .optional(),
    store: z
      .strictObject({
        retrySeconds: z.number().min(0).max(86_400).optional(),
        duckdbMaxSessions: z.number().int().min(0).optional(),
      })
      .optional(),
    alerts: z
      .strictObject({
        url: z.union([alertUrl, z.array(alertUrl).min(1)]).optional(),
        retries: z.number().int().min(0).max(20).optional(),
        timeoutMs: z.number().int().min(100).max(600_000).optional(),
        staleCheckSeconds: z.number().int().min(1).optional(),
      })
      .optional(),
    verify: z
      .strictObject({
        budget: z.number().int().min(1).optional(),
        every: z.string().min(1).optional(),
      })
      .optional(),
  });
}

let built: ReturnType<typeof buildFileSchema> | undefined;

/** The config file's schema: a file is checked against it as it is read. */
export function fileSchema(): ReturnType<typeof buildFileSchema> {
  return (built ??= buildFileSchema());
}

export type FileConfig = Zod.infer<ReturnType<typeof buildFileSchema>>;
