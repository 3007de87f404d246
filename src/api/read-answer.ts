import type { FailureKind } from './retry-policy.js';

export interface Answer {
  status: number;
  body: unknown;
  /** The body's JSON text as received, when it parsed to an object or array (element-texts.ts slices items from it). */
  text?: string;
}

/** One failed attempt, as the retry decision, the counters and the error messages read it. */
export interface Failure {
  kind: FailureKind;
  /** The answer, when one came: a status of 400 or more, or a body that is not JSON. */
  response?: { status: number; retryAfter: string | undefined; body: unknown };
  /** What the HTTP client said of a failure with no answer (it never holds a header). */
  message: string;
}

export type Outcome = { ok: true; answer: Answer } | { ok: false; failure: Failure };

/** A header's one value: undici gives an array for a header sent twice. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * An answer's status and text as the transport reads them. Below 400 it is an
 * answer (a redirect is not followed: it could carry the Authorization
 * header to another host, and the service documents none); its body must be
 * JSON, or the attempt failed as `invalid-body` (a body cut off mid-way), which
 * is retried. From 400 on the attempt failed with that status; its body is
 * kept parsed when it is JSON (the service's message), else as text.
 */
export function readAnswer(status: number, retryAfter: string | undefined, text: string): Outcome {
  let body: unknown = text;
  let parsed = false;
  if (text !== '') {
    try {
      body = JSON.parse(text);
      parsed = true;
    } catch {
      if (status < 400) {
        const response = { status, retryAfter, body: text };
        return { ok: false, failure: { kind: { kind: 'invalid-body' }, response, message: 'invalid JSON' } };
      }
    }
  }
  if (status >= 400) {
    const response = { status, retryAfter, body };
    return { ok: false, failure: { kind: { kind: 'status', status }, response, message: `HTTP ${status}` } };
  }
  const structured = parsed && typeof body === 'object' && body !== null;
  return { ok: true, answer: structured ? { status, body, text } : { status, body } };
}
