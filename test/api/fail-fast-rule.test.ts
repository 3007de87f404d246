import { describe, expect, it } from 'vitest';
import { failFastVerdict, unreachableCause } from '../../src/api/fail-fast-rule.js';
import type { FailFastInput, FailFastVerdict } from '../../src/api/fail-fast-rule.js';
import type { FailureKind } from '../../src/api/retry-policy.js';

const network = (code: string): FailureKind => ({ kind: 'network', code });
const other = (code: string): FailureKind => ({ kind: 'other', code });
const status = (code: number): FailureKind => ({ kind: 'status', status: code });

describe('unreachableCause', () => {
  it.each<[FailureKind, string | null]>([
    [network('ECONNREFUSED'), 'connection refused (ECONNREFUSED)'],
    [network('ENOTFOUND'), 'unknown host (ENOTFOUND)'],
    [network('EAI_NONAME'), 'unknown host (EAI_NONAME)'],
    [network('EAI_AGAIN'), 'host name lookup failed (EAI_AGAIN)'],
    [network('EHOSTUNREACH'), 'no route to the host (EHOSTUNREACH)'],
    [network('EPROTO'), 'TLS handshake failed (EPROTO)'],
    [other('ERR_TLS_CERT_ALTNAME_INVALID'), 'TLS handshake failed (ERR_TLS_CERT_ALTNAME_INVALID)'],
    [other('DEPTH_ZERO_SELF_SIGNED_CERT'), 'TLS handshake failed (DEPTH_ZERO_SELF_SIGNED_CERT)'],
    [other('CERT_HAS_EXPIRED'), 'TLS handshake failed (CERT_HAS_EXPIRED)'],
    [other('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'TLS handshake failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE)'],
    [other('ERR_SSL_WRONG_VERSION_NUMBER'), 'TLS handshake failed (ERR_SSL_WRONG_VERSION_NUMBER)'],
    // Passing faults of a service that is there.
    [network('ECONNRESET'), null],
    [network('EPIPE'), null],
    [{ kind: 'timeout' }, null],
    [{ kind: 'invalid-body' }, null],
    [status(500), null],
    [other('ERR_ABORTED'), null],
  ])('%j: %s', (kind, expected) => {
    expect(unreachableCause(kind)).toBe(expected);
  });
});

describe('failFastVerdict', () => {
  const rows: Array<[string, FailFastInput, FailFastVerdict]> = [
    [
      '401, before anything succeeded',
      { kind: status(401), attempt: 1, proven: false, strikes: 0, forbiddenRejectsToken: false },
      { kind: 'rejected', status: 401 },
    ],
    [
      '401 in a healthy run',
      { kind: status(401), attempt: 1, proven: true, strikes: 0, forbiddenRejectsToken: false },
      { kind: 'rejected', status: 401 },
    ],
    [
      '403 on a search',
      { kind: status(403), attempt: 1, proven: true, strikes: 0, forbiddenRejectsToken: true },
      { kind: 'rejected', status: 403 },
    ],
    [
      '403 on a by-id route (one hidden session)',
      { kind: status(403), attempt: 1, proven: false, strikes: 0, forbiddenRejectsToken: false },
      { kind: 'go-on' },
    ],
    [
      'refused, first attempt: a strike, one quick retry',
      { kind: network('ECONNREFUSED'), attempt: 1, proven: false, strikes: 0, forbiddenRejectsToken: true },
      { kind: 'strike' },
    ],
    [
      'refused, first attempt of another request after a strike',
      { kind: network('ECONNREFUSED'), attempt: 1, proven: false, strikes: 1, forbiddenRejectsToken: true },
      { kind: 'unreachable', cause: 'connection refused (ECONNREFUSED)' },
    ],
    [
      'refused again',
      { kind: network('ECONNREFUSED'), attempt: 2, proven: false, strikes: 0, forbiddenRejectsToken: true },
      { kind: 'unreachable', cause: 'connection refused (ECONNREFUSED)' },
    ],
    [
      'refused, first attempt of a create: still one retry (nothing reached the service)',
      {
        kind: network('ECONNREFUSED'),
        attempt: 1,
        proven: false,
        strikes: 0,
        forbiddenRejectsToken: false,
        idempotent: false,
      },
      { kind: 'strike' },
    ],
    [
      'unknown host: no retry',
      { kind: network('ENOTFOUND'), attempt: 1, proven: false, strikes: 0, forbiddenRejectsToken: true },
      { kind: 'unreachable', cause: 'unknown host (ENOTFOUND)' },
    ],
    [
      'lookup failed, first attempt: one retry',
      { kind: network('EAI_AGAIN'), attempt: 1, proven: false, strikes: 0, forbiddenRejectsToken: true },
      { kind: 'strike' },
    ],
    [
      'TLS: no retry',
      { kind: other('CERT_HAS_EXPIRED'), attempt: 1, proven: false, strikes: 0, forbiddenRejectsToken: true },
      { kind: 'unreachable', cause: 'TLS handshake failed (CERT_HAS_EXPIRED)' },
    ],
    [
      'refused in a healthy run: the retry policy rides it out',
      { kind: network('ECONNREFUSED'), attempt: 5, proven: true, strikes: 0, forbiddenRejectsToken: true },
      { kind: 'go-on' },
    ],
    [
      'refused in a healthy run, after strikes at its start',
      { kind: network('ECONNREFUSED'), attempt: 1, proven: true, strikes: 1, forbiddenRejectsToken: true },
      { kind: 'go-on' },
    ],
    [
      'reset before anything succeeded: a passing fault',
      { kind: network('ECONNRESET'), attempt: 3, proven: false, strikes: 0, forbiddenRejectsToken: true },
      { kind: 'go-on' },
    ],
    [
      '500 before anything succeeded',
      { kind: status(500), attempt: 4, proven: false, strikes: 0, forbiddenRejectsToken: true },
      { kind: 'go-on' },
    ],
    [
      'time-out before anything succeeded',
      { kind: { kind: 'timeout' }, attempt: 2, proven: false, strikes: 0, forbiddenRejectsToken: true },
      { kind: 'go-on' },
    ],
  ];
  it.each(rows)('%s', (_name, input, expected) => {
    expect(failFastVerdict(input)).toEqual(expected);
  });
});
