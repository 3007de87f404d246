import type { FailureKind } from './retry-policy.js';

/** The part of got's `RequestError` that tells what went wrong (no options, no headers). */
export interface GotFailureShape {
  readonly name: string;
  readonly code?: string | undefined;
  readonly response?: { readonly statusCode: number } | undefined;
}

/**
 * Sorts one of got's errors into the kinds the retry policy knows. Relies on
 * got 16's error classes: `HTTPError` (non-2xx, with `response`), `ParseError`
 * (a 2xx whose JSON does not parse, e.g. a body cut off mid-way), `TimeoutError`
 * (code `ETIMEDOUT`), and `RequestError`/`ReadError` carrying the socket's code
 * (`ECONNRESET` also for "socket hang up"). A response that ends before its
 * Content-Length is a `ReadError` with `ERR_HTTP_CONTENT_LENGTH_MISMATCH`: the
 * connection broke off mid-answer, which is a reset (got 14 said ECONNRESET).
 */
export function failureKind(error: GotFailureShape): FailureKind {
  if (error.name === 'HTTPError' && error.response !== undefined) {
    return { kind: 'status', status: error.response.statusCode };
  }
  if (error.name === 'ParseError') return { kind: 'invalid-body' };
  if (error.name === 'TimeoutError') return { kind: 'timeout' };
  if (error.code === 'ERR_HTTP_CONTENT_LENGTH_MISMATCH') return { kind: 'network', code: 'ECONNRESET' };
  const code = error.code ?? 'UNKNOWN';
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
