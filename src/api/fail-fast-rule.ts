import { isRetryable } from './retry-policy.js';
import type { FailureKind } from './retry-policy.js';

/** Host-name lookups that say the name does not exist, as Node's resolver reports them. */
const UNKNOWN_HOST = new Set(['ENOTFOUND', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);
const NO_ROUTE = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN']);

/**
 * OpenSSL and Node name TLS failures by the check that failed (`CERT_HAS_EXPIRED`, `ERR_TLS_CERT_ALTNAME_INVALID`,
 * ...).
 */
function isTlsCode(code: string): boolean {
  return (
    code === 'EPROTO' || /^ERR_(TLS|SSL)_/.test(code) || /CERT/.test(code) || /^UNABLE_TO_(VERIFY|GET)_/.test(code)
  );
}

/**
 * What a failure says when it means the service cannot be reached at all (a
 * wrong host or port, no network, a TLS endpoint that is not the service):
 * one phrase for the error message, or null for failures that say nothing of
 * the kind (a status, a time-out, a reset mid-answer).
 */
export function unreachableCause(kind: FailureKind): string | null {
  if (kind.kind !== 'network' && kind.kind !== 'other') return null;
  const { code } = kind;
  if (code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)';
  if (UNKNOWN_HOST.has(code)) return `unknown host (${code})`;
  if (code === 'EAI_AGAIN') return 'host name lookup failed (EAI_AGAIN)';
  if (NO_ROUTE.has(code)) return `no route to the host (${code})`;
  if (isTlsCode(code)) return `TLS handshake failed (${code})`;
  return null;
}

export interface FailFastInput {
  kind: FailureKind;
  /** 1 for the first attempt of the request. */
  attempt: number;
  /** Whether any request of this client has had an answer (any HTTP status) since the latch was armed. */
  proven: boolean;
  /** Failures to reach the service this client has had so far, while unproven (the strikes of earlier verdicts). */
  strikes: number;
  /** A 403 on this route means the token lacks access (health, searches). */
  forbiddenRejectsToken: boolean;
  /** @default true */
  idempotent?: boolean;
}

export type FailFastVerdict =
  /** Nothing for the latch: the retry policy decides alone. */
  | { kind: 'go-on' }
  /** The client's first failure to reach the service: counted, and the retry policy may try once more. */
  | { kind: 'strike' }
  /** The service cannot be reached: every request of the client fails at once. */
  | { kind: 'unreachable'; cause: string }
  /** The token is refused: every request of the client fails at once. */
  | { kind: 'rejected'; status: number };

/**
 * Whether one failed attempt trips the client's fail-fast latch. A refused
 * token does at any time: no later request can succeed with it. A failure to
 * reach the service does only until one request has had an answer: at the
 * start it means a wrong base URL or port, which retrying for a minute will
 * not fix, while in a healthy run it is a passing fault the retry policy
 * rides out. The client gets one second chance where the failure can pass (a
 * refused connection while the service restarts), none where it cannot (an
 * unknown host, a TLS error). It is the client's, not each request's: with
 * many workers starting at once, the second of their first attempts to fail
 * trips the latch, rather than every one of them earning a retry in the bucket.
 */
export function failFastVerdict(input: FailFastInput): FailFastVerdict {
  const { kind } = input;
  if (kind.kind === 'status' && (kind.status === 401 || (kind.status === 403 && input.forbiddenRejectsToken))) {
    return { kind: 'rejected', status: kind.status };
  }
  if (input.proven) return { kind: 'go-on' };
  const cause = unreachableCause(kind);
  if (cause === null) return { kind: 'go-on' };
  if (input.strikes > 0 || input.attempt >= 2 || !isRetryable({ ...kind, idempotent: input.idempotent ?? true }))
    return { kind: 'unreachable', cause };
  return { kind: 'strike' };
}
