import { describe, expect, it } from 'vitest';
import { errorCode } from '../../src/api/failure-kind.js';
import type { FailureKind } from '../../src/api/retry-policy.js';

describe('errorCode', () => {
  // The keys of ClientStats.byStatus and the `error` of request events: dashboards and logs match on them.
  it.each<[FailureKind, string]>([
    [{ kind: 'status', status: 429 }, '429'],
    [{ kind: 'status', status: 503 }, '503'],
    [{ kind: 'network', code: 'ECONNREFUSED' }, 'ECONNREFUSED'],
    [{ kind: 'other', code: 'ERR_INVALID_URL' }, 'ERR_INVALID_URL'],
    [{ kind: 'timeout' }, 'ETIMEDOUT'],
    [{ kind: 'invalid-body' }, 'EBADBODY'],
  ])('%o is counted as %s', (kind, expected) => {
    expect(errorCode(kind)).toBe(expected);
  });
});
