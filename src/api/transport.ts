import { setTimeout as delay } from 'node:timers/promises';
import { Pool } from './undici-dispatchers.js';
import type { Secret } from '../config/secret.js';
import {
  ApiError,
  AuthRejectedError,
  BadRequestError,
  RetriesExhaustedError,
  RouteNotFoundError,
  ServiceUnreachableError,
} from './errors.js';
import { FailFastLatch } from './fail-fast-latch.js';
import { failFastVerdict } from './fail-fast-rule.js';
import type { FailFastVerdict } from './fail-fast-rule.js';
import { describeFailure, errorCode, failureKind } from './failure-kind.js';
import type { RateLimiter } from './rate-limiter.js';
import { countAttempt, countFailure } from './request-tally.js';
import { retryAfterMs } from './retry-after.js';
import { isRetryable, retryDecision } from './retry-policy.js';
import type { RetryPolicyOptions } from './retry-policy.js';
import { fillRoute } from './route-path.js';
import type { ClientStats, Priority, RequestEvent, RequestTally } from './service-client.js';
import { serviceMessage } from './service-message.js';
import { headerValue, readAnswer, type Answer, type Failure, type Outcome } from './read-answer.js';

export type { Answer } from './read-answer.js';

export interface TransportOptions {
  /** Validated root without trailing slash (see `parseBaseUrl`). */
  baseUrl: string;
  token: Secret;
  /** Value of the `Api-Version` header. */
  apiVersionHeader: string;
  acceptLanguage: 'en' | 'ja';
  userAgent: string;
  limiter: RateLimiter;
  timeoutMs: number;
  retry: RetryPolicyOptions;
  random: () => number;
  /** Monotonic milliseconds, for event durations and the fail-fast hold. */
  now: () => number;
  /** How long a tripped fail-fast latch fails every request (FailFastLatchOptions.holdMs). */
  failFastHoldMs: number;
  onRequest?: ((event: RequestEvent) => void) | undefined;
}

/** One logical request: one attempt, or more when the retry policy says so. */
export interface Call {
  method: 'GET' | 'POST';
  /** Path template, e.g. `/v1/authentications/{service_id}`; events and errors name it, never the ids. */
  route: string;
  params?: Readonly<Record<string, string>>;
  searchParams?: Readonly<Record<string, string>>;
  /** JSON body; sent with `Content-Type: application/json`. */
  body?: unknown;
  /** @default 0 */
  priority?: Priority;
  /** Counts the call's attempts besides the transport's own stats. */
  tally?: RequestTally;
  /** Called as each attempt takes its token and leaves. */
  onSend?: () => void;
  /** @default true */
  idempotent?: boolean;
  /** Statuses that are answers rather than failures (403 or 404 on by-id routes). */
  answers?: readonly number[];
  /** A 403 here means the token itself lacks access (health, searches), not that one item is hidden. */
  forbiddenRejectsToken?: boolean;
  /** The route exists on every service (health, searches): a 404 means a wrong base URL, not a missing item. */
  alwaysExists?: boolean;
  /** Secrets besides the token that this call puts on the wire; scrubbed from messages. */
  secrets?: readonly Secret[];
}

interface AttemptState {
  attempt: number;
  startedAt: number;
}

/**
 * The HTTP layer: headers, the shared token bucket, the retry policy, error
 * mapping, on a keep-alive connection pool of undici's (Node's own HTTP
 * client, as a package). got 16 spent about 0.8 ms of CPU a request more than
 * undici's pool on the same page of 25 items (its options merged per request,
 * its stream wrapper and events), some 30 ms per 1,000 items a backfill
 * stores (docs/benchmarks.md). What it relies on:
 *
 * - Each attempt, first or retry, takes a token from the RateLimiter before
 *   it is sent. The retry policy (retry-policy.ts) decides alone whether a
 *   failed attempt is tried again, and after how long: whatever the method or
 *   status, so POST searches are retried too; a create only where the service
 *   certainly did not act on it.
 * - `timeoutMs` bounds the connection's set-up, the wait for the answer's
 *   headers and each wait between pieces of its body (undici's connect,
 *   headers and body time-outs). Time spent waiting for a token does not
 *   count: the clock starts when the attempt is sent.
 * - A connection that breaks off (undici's `UND_ERR_SOCKET`, or a body that
 *   ends before its Content-Length) is a reset, ECONNRESET (failure-kind.ts).
 * - `Retry-After` is read by retry-after.ts, fractions of a second included,
 *   which the service sends; an HTTP date in it is read against the wall clock.
 * - No undici error leaves this file: failures are mapped into the errors of
 *   ./errors.ts, which hold only strings and numbers, and the token is never
 *   in a message (#scrub).
 * - A request holds its client's fail-fast latch guard: when the latch trips
 *   (a refused token, a service that cannot be reached, fail-fast-rule.ts),
 *   the request fails at once with the latch's error, whether it waits for a
 *   token, is in flight (undici aborts it) or waits out a retry backoff.
 */
export class Transport {
  readonly #options: TransportOptions;
  readonly #pool: Pool;
  /** The base URL's path, without a trailing slash: the routes follow it. */
  readonly #prefix: string;
  /** The headers of every request but the token's, as name-value pairs. */
  readonly #headers: readonly string[];
  readonly #stats: ClientStats = { requests: 0, retries: 0, status429: 0, retryWaitMs: 0, byStatus: {} };
  readonly #latch: FailFastLatch;
  readonly #host: string;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#latch = new FailFastLatch({ holdMs: options.failFastHoldMs, now: options.now });
    const base = new URL(options.baseUrl);
    this.#host = base.host;
    this.#prefix = base.pathname.replace(/\/+$/, '');
    this.#pool = new Pool(base.origin, {
      connect: { timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    this.#headers = [
      'api-version',
      options.apiVersionHeader,
      'accept-language',
      options.acceptLanguage,
      'user-agent',
      options.userAgent,
      'accept',
      'application/json',
    ];
  }

  get stats(): Readonly<ClientStats> {
    return { ...this.#stats, byStatus: { ...this.#stats.byStatus } };
  }

  close(): void {
    this.#pool.destroy().catch(() => undefined);
  }

  async send(call: Call): Promise<Answer> {
    // Tripped: fail at once, with no token taken and nothing sent.
    const latched = this.#latch.error;
    if (latched !== undefined) throw latched;
    const guard = this.#latch.guard();
    try {
      return await this.#send(call, guard.signal);
    } catch (error) {
      throw guard.signal.aborted ? (guard.signal.reason as Error) : error;
    } finally {
      guard.release();
    }
  }

  async #send(call: Call, signal: AbortSignal): Promise<Answer> {
    const { limiter, now } = this.#options;
    const path = fillRoute(call.route, call.params);
    const query = call.searchParams === undefined ? '' : `?${new URLSearchParams(call.searchParams).toString()}`;
    const target = `${this.#prefix}${path}${query}`;
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    const state: AttemptState = { attempt: 0, startedAt: now() };
    const priority = (): number => (typeof call.priority === 'function' ? call.priority() : (call.priority ?? 0));
    for (;;) {
      await limiter.schedule(async () => undefined, { priority: priority(), signal });
      // Tripped while this one got its token: nothing goes out.
      signal.throwIfAborted();
      call.onSend?.();
      state.attempt += 1;
      state.startedAt = now();
      this.#stats.requests += 1;
      countAttempt(call.tally);
      const outcome = await this.#attempt(call.method, target, payload, signal);
      if (outcome.ok) return this.#answered(call, path, state, outcome.answer);
      const waitMs = this.#afterFailure(call, state, outcome.failure);
      if (waitMs === 0) return this.#failed(call, path, state, outcome.failure);
      await delay(waitMs, undefined, { signal });
    }
  }

  /** One attempt on the wire: its answer, or why it failed. A trip of the latch meanwhile throws its error. */
  async #attempt(
    method: Call['method'],
    path: string,
    payload: string | undefined,
    signal: AbortSignal,
  ): Promise<Outcome> {
    // Revealed here, per attempt, where it goes on the wire.
    const headers = [...this.#headers, 'authorization', `Token ${this.#options.token.reveal()}`];
    if (payload !== undefined) headers.push('content-type', 'application/json');
    try {
      const response = await this.#pool.request({ path, method, headers, body: payload, signal });
      const text = await response.body.text();
      return readAnswer(response.statusCode, headerValue(response.headers['retry-after']), text);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const shape = error as { code?: string; message?: string };
      const failure: Failure = { kind: failureKind(shape), message: String(shape.message ?? error) };
      return { ok: false, failure };
    }
  }

  #answered(call: Call, path: string, state: AttemptState, answer: Answer): Answer {
    const { status } = answer;
    this.#latch.prove();
    this.#count(String(status));
    this.#emit({
      method: call.method,
      route: call.route,
      status,
      error: null,
      durationMs: this.#options.now() - state.startedAt,
      attempt: state.attempt,
      retryWaitMs: 0,
    });
    if (status < 200 || status > 299) {
      throw new ApiError(`${call.method} ${this.#url(path)} answered an unexpected ${status}`, {
        status,
        route: `${call.method} ${call.route}`,
      });
    }
    return answer;
  }

  /** One failed attempt in, a wait before the next (or 0: give up) out. */
  #afterFailure(call: Call, state: AttemptState, failure: Failure): number {
    // Cut by the latch (waiting for a token, in flight, or between attempts): no further attempt.
    if (this.#latch.error !== undefined) return 0;
    const { kind, response } = failure;
    const status = kind.kind === 'status' ? kind.status : null;
    if (response !== undefined) this.#latch.prove();
    this.#count(errorCode(kind));
    if (status === 429) this.#stats.status429 += 1;

    const idempotent = call.idempotent ?? true;
    const verdict = failFastVerdict({
      kind,
      attempt: state.attempt,
      proven: this.#latch.proven,
      strikes: this.#latch.strikes,
      forbiddenRejectsToken: call.forbiddenRejectsToken === true,
      idempotent,
    });
    const decision = retryDecision(
      state.attempt,
      { ...kind, idempotent },
      // An HTTP date in it is a wall-clock time.
      retryAfterMs(response?.retryAfter, Date.now()),
      this.#options.retry,
      this.#options.random,
    );
    if (verdict.kind === 'strike') this.#latch.strike();
    const waitMs = decision.retry && (verdict.kind === 'go-on' || verdict.kind === 'strike') ? decision.delayMs : 0;
    countFailure(call.tally, status === 429, waitMs);
    if (waitMs > 0) {
      this.#stats.retries += 1;
      this.#stats.retryWaitMs += waitMs;
      // The whole bucket waits: every other request of this token would get a 429 too.
      if (status === 429) this.#options.limiter.pauseFor(waitMs);
    }
    this.#emit({
      method: call.method,
      route: call.route,
      // A body that did not parse still came with a status.
      status: response?.status ?? null,
      error: kind.kind === 'status' ? null : errorCode(kind),
      durationMs: this.#options.now() - state.startedAt,
      attempt: state.attempt,
      retryWaitMs: waitMs,
    });
    if (verdict.kind === 'unreachable' || verdict.kind === 'rejected')
      this.#latch.trip(this.#latchError(verdict, call));
    return waitMs;
  }

  #latchError(verdict: Extract<FailFastVerdict, { kind: 'unreachable' | 'rejected' }>, call: Call): Error {
    const route = `${call.method} ${call.route}`;
    return verdict.kind === 'rejected'
      ? new AuthRejectedError({ status: verdict.status, route })
      : new ServiceUnreachableError({ host: this.#host, cause: verdict.cause, route });
  }

  /** The last attempt failed: an answer the caller expects, or one of the errors of ./errors.ts. */
  #failed(call: Call, path: string, state: AttemptState, failure: Failure): Answer {
    const { kind } = failure;
    const route = `${call.method} ${call.route}`;
    if (kind.kind === 'status') {
      const { status } = kind;
      const body: unknown = failure.response?.body;
      if (call.answers?.includes(status) === true) return { status, body };
      if (status === 401 || (status === 403 && call.forbiddenRejectsToken === true)) {
        throw new AuthRejectedError({ status, route });
      }
      if (status === 400) {
        throw new BadRequestError({ route, serviceMessage: this.#scrub(serviceMessage(body), call) });
      }
      if (status === 404 && call.alwaysExists === true) {
        const url = this.#url(path);
        const error = new RouteNotFoundError({ method: call.method, url, baseUrl: this.#options.baseUrl, route });
        // Every other request of this client would meet it too: they fail at once.
        this.#latch.trip(error);
        throw error;
      }
    }
    const status = kind.kind === 'status' ? kind.status : null;
    const cause =
      kind.kind === 'other'
        ? `${describeFailure(kind, this.#options.timeoutMs)}: ${this.#scrub(failure.message, call)}`
        : describeFailure(kind, this.#options.timeoutMs);
    if (isRetryable({ ...kind, idempotent: call.idempotent ?? true })) {
      throw new RetriesExhaustedError({
        method: call.method,
        path: this.#url(path),
        route,
        attempts: Math.max(1, state.attempt),
        status,
        lastCause: cause,
      });
    }
    const explanation = status === null ? '' : `: ${this.#scrub(serviceMessage(failure.response?.body), call)}`;
    throw new ApiError(`${call.method} ${this.#url(path)} failed with ${cause}${explanation}`, { status, route });
  }

  /** The URL a request went to, as the user can compare it with the base URL they gave (it never holds the token). */
  #url(path: string): string {
    return `${this.#options.baseUrl}${path}`;
  }

  /** Belt and braces: the service could echo a credential back in an error body. */
  #scrub(text: string, call: Call): string {
    let out = text;
    for (const secret of [this.#options.token, ...(call.secrets ?? [])]) {
      const value = secret.reveal();
      if (value !== '') out = out.split(value).join('[redacted]');
    }
    return out;
  }

  #count(key: string): void {
    this.#stats.byStatus[key] = (this.#stats.byStatus[key] ?? 0) + 1;
  }

  #emit(event: RequestEvent): void {
    this.#options.onRequest?.(event);
  }
}
