import { describe, expect, it } from 'vitest';
import { retryDecision } from '../../src/api/retry-policy.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import type { RetryableInput, RetryDecision, RetryPolicyOptions } from '../../src/api/retry-policy.js';

const policy: RetryPolicyOptions = { limit: 8, baseMs: 500, maxMs: 30_000 };
const top = () => 0.999_999;
const half = () => 0.5;
const zero = () => 0;

interface Row {
  name: string;
  attempt: number;
  input: RetryableInput;
  retryAfterMs?: number;
  random?: () => number;
  options?: RetryPolicyOptions;
  expected: RetryDecision;
}

const status = (code: number, idempotent?: boolean): RetryableInput =>
  idempotent === undefined ? { kind: 'status', status: code } : { kind: 'status', status: code, idempotent };

const rows: Row[] = [
  // Passing faults are retried with full jitter under 500 * 2^(attempt-1).
  {
    name: '500, first attempt, top of the jitter',
    attempt: 1,
    input: status(500),
    random: top,
    expected: { retry: true, delayMs: 499 },
  },
  {
    name: '502, third attempt, half jitter',
    attempt: 3,
    input: status(502),
    random: half,
    expected: { retry: true, delayMs: 1000 },
  },
  { name: '503 retried', attempt: 2, input: status(503), random: half, expected: { retry: true, delayMs: 500 } },
  {
    name: 'connection reset',
    attempt: 1,
    input: { kind: 'network', code: 'ECONNRESET' },
    random: half,
    expected: { retry: true, delayMs: 250 },
  },
  {
    name: 'connection refused',
    attempt: 1,
    input: { kind: 'network', code: 'ECONNREFUSED' },
    random: half,
    expected: { retry: true, delayMs: 250 },
  },
  { name: 'time-out', attempt: 2, input: { kind: 'timeout' }, random: half, expected: { retry: true, delayMs: 500 } },
  {
    name: 'truncated JSON body',
    attempt: 1,
    input: { kind: 'invalid-body' },
    random: half,
    expected: { retry: true, delayMs: 250 },
  },
  // The cap: 500 * 2^7 = 64 000 > 30 000.
  {
    name: 'backoff ceiling capped at maxMs',
    attempt: 8,
    input: status(500),
    random: half,
    expected: { retry: true, delayMs: 15_000 },
  },
  // got reads 0 as "do not retry", so the floor is 1 ms.
  {
    name: 'zero jitter still waits 1 ms',
    attempt: 1,
    input: status(500),
    random: zero,
    expected: { retry: true, delayMs: 1 },
  },
  // 429 obeys Retry-After exactly, even beyond maxMs.
  {
    name: '429 with Retry-After',
    attempt: 1,
    input: status(429),
    retryAfterMs: 2000,
    random: half,
    expected: { retry: true, delayMs: 2000 },
  },
  {
    name: '429 with Retry-After above maxMs',
    attempt: 1,
    input: status(429),
    retryAfterMs: 45_000,
    random: half,
    expected: { retry: true, delayMs: 45_000 },
  },
  {
    name: '429 without Retry-After backs off',
    attempt: 2,
    input: status(429),
    random: half,
    expected: { retry: true, delayMs: 500 },
  },
  // The limit: attempt 8 may retry, attempt 9 gives up (9 attempts in all).
  {
    name: 'attempt == limit still retries',
    attempt: 8,
    input: status(500),
    random: zero,
    expected: { retry: true, delayMs: 1 },
  },
  { name: 'attempt > limit gives up', attempt: 9, input: status(500), expected: { retry: false } },
  {
    name: '429 past the limit gives up',
    attempt: 9,
    input: status(429),
    retryAfterMs: 1000,
    expected: { retry: false },
  },
  {
    name: 'limit 0 never retries',
    attempt: 1,
    input: status(500),
    options: { ...policy, limit: 0 },
    expected: { retry: false },
  },
  // Client errors are final.
  { name: '400', attempt: 1, input: status(400), expected: { retry: false } },
  { name: '401', attempt: 1, input: status(401), expected: { retry: false } },
  { name: '403', attempt: 1, input: status(403), expected: { retry: false } },
  { name: '404', attempt: 1, input: status(404), expected: { retry: false } },
  { name: '409', attempt: 1, input: status(409), expected: { retry: false } },
  { name: '422 (other 4xx)', attempt: 1, input: status(422), expected: { retry: false } },
  {
    name: 'unknown failure',
    attempt: 1,
    input: { kind: 'other', code: 'ERR_INVALID_URL' },
    expected: { retry: false },
  },
  {
    name: 'TLS failure is not transient',
    attempt: 1,
    input: { kind: 'network', code: 'EPROTO' },
    expected: { retry: false },
  },
  // A create must not be sent twice unless the service certainly did not act on it.
  { name: 'non-idempotent 500', attempt: 1, input: status(500, false), expected: { retry: false } },
  {
    name: 'non-idempotent reset',
    attempt: 1,
    input: { kind: 'network', code: 'ECONNRESET', idempotent: false },
    expected: { retry: false },
  },
  {
    name: 'non-idempotent time-out',
    attempt: 1,
    input: { kind: 'timeout', idempotent: false },
    expected: { retry: false },
  },
  {
    name: 'non-idempotent 429',
    attempt: 1,
    input: status(429, false),
    retryAfterMs: 1000,
    expected: { retry: true, delayMs: 1000 },
  },
  {
    name: 'non-idempotent 503',
    attempt: 1,
    input: status(503, false),
    random: half,
    expected: { retry: true, delayMs: 250 },
  },
  {
    name: 'non-idempotent refused',
    attempt: 1,
    input: { kind: 'network', code: 'ECONNREFUSED', idempotent: false },
    random: half,
    expected: { retry: true, delayMs: 250 },
  },
];

describe('retryDecision', () => {
  it.each(rows)('$name', (row) => {
    const random =
      row.random ??
      (() => {
        throw new Error('no jitter expected');
      });
    expect(retryDecision(row.attempt, row.input, row.retryAfterMs, row.options ?? policy, random)).toEqual(
      row.expected,
    );
  });

  it('defaults to limit 8, base 500 ms, cap 30 s', () => {
    expect({
      limit: DEFAULTS.http.retryLimit,
      baseMs: DEFAULTS.http.retryBaseMs,
      maxMs: DEFAULTS.http.retryMaxMs,
    }).toEqual({ limit: 8, baseMs: 500, maxMs: 30_000 });
  });

  it('never exceeds the ceiling for any jitter draw', () => {
    for (let attempt = 1; attempt <= 8; attempt += 1) {
      const ceiling = Math.min(30_000, 500 * 2 ** (attempt - 1));
      for (const draw of [0, 0.1, 0.5, 0.9, 0.999_999]) {
        const decision = retryDecision(attempt, { kind: 'status', status: 500 }, undefined, policy, () => draw);
        expect(decision.retry).toBe(true);
        // Undefined (no retry) fails both bounds.
        const delayMs = decision.retry ? decision.delayMs : undefined;
        expect(delayMs).toBeGreaterThanOrEqual(1);
        expect(delayMs).toBeLessThan(ceiling);
      }
    }
  });
});
