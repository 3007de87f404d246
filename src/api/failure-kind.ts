import type { FailureKind } from './retry-policy.js';

/** The part of an HTTP client's error that tells what went wrong (no request, no headers). */
export interface ClientFailureShape {
  readonly code?: string | undefined;
}

/** undici's codes for a connection that broke off mid-answer: a reset, as Node's own client says. */
const RESET_CODES: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);

/** undici's codes for no connection, no headers, or a body that stopped arriving, within the time-out. */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/**
 * Sorts an error of undici's (the transport's HTTP client) into the kinds the
 * retry policy knows. A failure to connect carries the socket's own code
 * (ECONNREFUSED, ENOTFOUND, EAI_AGAIN); a connection closed by the other side,
 * before or during the answer, is `UND_ERR_SOCKET`, and a body that ends before
 * its Content-Length `UND_ERR_RES_CONTENT_LENGTH_MISMATCH`: both a reset,
 * ECONNRESET. An answer's status and a body that is not JSON are read from the
 * answer itself (transport.ts), not from an error.
 */
export function failureKind(error: ClientFailureShape): FailureKind {
  const code = error.code ?? 'UNKNOWN';
  if (TIMEOUT_CODES.has(code)) return { kind: 'timeout' };
  if (RESET_CODES.has(code)) return { kind: 'network', code: 'ECONNRESET' };
  if (/^(E[A-Z]+|UND_ERR_[A-Z_]+|EAI_[A-Z]+)$/.test(code)) return { kind: 'network', code };
  return { kind: 'other', code };
}

/** One phrase for an error message: what the last attempt ran into. */
export function describeFailure(kind: FailureKind, timeoutMs: number): string {
  switch (kind.kind) {
    case 'status':
      return kind.status === 429 ? 'HTTP 429 (rate limited)' : `HTTP ${kind.status}`;
    case 'network':
      return `connection failed (${kind.code})`;
    case 'timeout':
      return `no answer within ${timeoutMs} ms`;
    case 'invalid-body':
      return 'the response body was not valid JSON (truncated?)';
    case 'other':
      return `request failed (${kind.code})`;
  }
}

/** The key a failure is counted under (ClientStats.byStatus) and the `error` of its RequestEvent. */
export function errorCode(kind: FailureKind): string {
  switch (kind.kind) {
    case 'network':
    case 'other':
      return kind.code;
    case 'timeout':
      return 'ETIMEDOUT';
    case 'invalid-body':
      return 'EBADBODY';
    case 'status':
      return String(kind.status);
  }
}
