import type { CursorStyle } from './cursor.js';
import type { FaultSpec } from './fault-spec.js';
import { parseFaultSpec, validateFaultSpec } from './fault-spec.js';
import type { RangeSemantics } from './sorted-sessions.js';

export interface SimulatorOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 0 */
  port?: number;
  /** Seeds the world, the faults, the latency and the delivery jitter. @default 1 */
  seed?: number;
  /** Sessions of each token owner (about 70% authentications, 30% fingerprints). @default 1000 */
  sessions?: number;
  /** Sessions of the owner without a token; never returned to the token owners. @default round(sessions / 10) */
  otherOwnerSessions?: number;
  /** Epoch seconds the generated created times span, [from, to). @default 365 days before 1_790_000_000 */
  from?: number;
  /** @default 1_790_000_000 (fixed, so a seed gives the same world whatever the wall clock says) */
  to?: number;
  /**
   * token -> owner username; every owner is an account with its own data and its own rate bucket. @default {
   * 'test-token': 'alice' }
   */
  tokens?: Record<string, string>;
  /** Owner of the other-owner sessions, and where removeAccess moves sessions. @default 'mallory' */
  otherOwner?: string;
  /** Requests per second per token. @default 10 */
  rate?: number;
  /** Bucket capacity. @default rate */
  burst?: number;
  /** Retry-After of a 429. @default 1 */
  retryAfterSeconds?: number;
  /** Added to every response, errors included: fixed, or a uniform [min, max] range. @default 0 */
  latencyMs?: number | [number, number];
  /** How range.start and range.end bound created times. @default { start: 'inclusive', end: 'exclusive' } */
  rangeSemantics?: RangeSemantics;
  /** Per-request faults, as an object or as text for parseFaultSpec. @default none */
  faults?: FaultSpec | string;
  /**
   * Keep a log of every search page answered 200 in full (see served-pages.ts),
   * for tests that check which pages a resumed crawl asks for again.
   * @default false
   */
  recordServedPages?: boolean;
  /** Share of sessions created on a whole second (window-edge cases). @default 0.05 */
  integerEpochShare?: number;
  /** Share of sessions whose result is not final. @default 0.1 */
  nonFinalShare?: number;
  /**
   * Share of the generated sessions that the service sends with strings no
   * target can store as they are: U+0000 and lone surrogates (see poison.ts).
   * @default 0
   */
  poisonShare?: number;
  /** First redelivery delay, doubled per attempt. @default 200 */
  webhookRetryBaseMs?: number;
  /** @default 12 */
  webhookMaxAttempts?: number;
  /** Time-out of one delivery attempt. @default 5000 */
  webhookTimeoutMs?: number;
  /** First delivery attempts wait a random 0..deliveryJitterMs (deliveries then arrive out of order). @default 0 */
  deliveryJitterMs?: number;
  /** Milliseconds clock for the rate limit and the time of mutations and webhooks. @default Date.now */
  clock?: () => number;
  /** Accept http:// endpoints on 127.0.0.1 / localhost (tests and demos). @default true */
  allowHttpWebhookEndpoints?: boolean;
  /** Share of supported-catalog requests answered 503. @default 0.1 */
  catalogUnavailableShare?: number;
  /** The Api-Version value v2 routes require. @default '2.0.0' */
  v2ApiVersion?: string;
  /**
   * Shape of the searches' `next_cursor`: a string (as the spec shows), or an
   * array of strings ending with `null` or `[]` (as the service's SDK models
   * it). Only the shape handed out is taken back; anything else is a 400.
   * @default 'string'
   */
  cursorStyle?: CursorStyle;
}

export type ResolvedSimulatorOptions = Required<Omit<SimulatorOptions, 'faults'>> & { faults: FaultSpec };

export const DEFAULT_TO_EPOCH = 1_790_000_000;

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`simulator options: ${message}`);
}

export function normalizeLatency(latency: number | [number, number]): [number, number] {
  const [min, max] = typeof latency === 'number' ? [latency, latency] : latency;
  check(
    Number.isFinite(min) && Number.isFinite(max) && min >= 0 && max >= min,
    `latencyMs must be >= 0 (and min <= max), got ${JSON.stringify(latency)}`,
  );
  return [min, max];
}

export function resolveFaults(faults: FaultSpec | string | undefined): FaultSpec {
  if (faults === undefined) return {};
  if (typeof faults === 'string') return parseFaultSpec(faults);
  validateFaultSpec(faults);
  return { ...faults };
}

export function resolveSimulatorOptions(options: SimulatorOptions = {}): ResolvedSimulatorOptions {
  const sessions = options.sessions ?? 1000;
  const to = options.to ?? DEFAULT_TO_EPOCH;
  const from = options.from ?? to - 365 * 86_400;
  const rate = options.rate ?? 10;
  const resolved: ResolvedSimulatorOptions = {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    seed: options.seed ?? 1,
    sessions,
    otherOwnerSessions: options.otherOwnerSessions ?? Math.round(sessions / 10),
    from,
    to,
    tokens: { ...(options.tokens ?? { 'test-token': 'alice' }) },
    otherOwner: options.otherOwner ?? 'mallory',
    rate,
    burst: options.burst ?? rate,
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    latencyMs: options.latencyMs ?? 0,
    rangeSemantics: options.rangeSemantics ?? { start: 'inclusive', end: 'exclusive' },
    faults: resolveFaults(options.faults),
    recordServedPages: options.recordServedPages ?? false,
    integerEpochShare: options.integerEpochShare ?? 0.05,
    nonFinalShare: options.nonFinalShare ?? 0.1,
    poisonShare: options.poisonShare ?? 0,
    webhookRetryBaseMs: options.webhookRetryBaseMs ?? 200,
    webhookMaxAttempts: options.webhookMaxAttempts ?? 12,
    webhookTimeoutMs: options.webhookTimeoutMs ?? 5000,
    deliveryJitterMs: options.deliveryJitterMs ?? 0,
    clock: options.clock ?? Date.now,
    allowHttpWebhookEndpoints: options.allowHttpWebhookEndpoints ?? true,
    catalogUnavailableShare: options.catalogUnavailableShare ?? 0.1,
    v2ApiVersion: options.v2ApiVersion ?? '2.0.0',
    cursorStyle: options.cursorStyle ?? 'string',
  };
  check(
    Number.isInteger(resolved.sessions) && resolved.sessions >= 0,
    `sessions must be a whole number >= 0, got ${resolved.sessions}`,
  );
  check(
    Number.isInteger(resolved.otherOwnerSessions) && resolved.otherOwnerSessions >= 0,
    'otherOwnerSessions must be a whole number >= 0',
  );
  check(
    Number.isInteger(from) && Number.isInteger(to) && from < to,
    `from and to must be whole epoch seconds with from < to, got ${from}..${to}`,
  );
  check(Object.keys(resolved.tokens).length > 0, 'tokens must name at least one token');
  check(rate > 0 && resolved.burst >= 1, `rate must be > 0 and burst >= 1, got rate ${rate}, burst ${resolved.burst}`);
  check(
    Number.isInteger(resolved.retryAfterSeconds) && resolved.retryAfterSeconds >= 0,
    'retryAfterSeconds must be a whole number >= 0',
  );
  normalizeLatency(resolved.latencyMs);
  for (const share of ['integerEpochShare', 'nonFinalShare', 'poisonShare', 'catalogUnavailableShare'] as const) {
    check(resolved[share] >= 0 && resolved[share] <= 1, `${share} must be between 0 and 1, got ${resolved[share]}`);
  }
  check(resolved.webhookMaxAttempts >= 1, 'webhookMaxAttempts must be >= 1');
  check(
    resolved.cursorStyle === 'string' || resolved.cursorStyle === 'array',
    `cursorStyle must be 'string' or 'array', got ${JSON.stringify(resolved.cursorStyle)}`,
  );
  return resolved;
}
