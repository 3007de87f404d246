import http from 'node:http';
import https from 'node:https';
import got, { RequestError } from 'got';
import type { Got, OptionsOfJSONResponseBodyWrapped, RetryObject } from 'got';
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
import type { FailureKind, RetryPolicyOptions } from './retry-policy.js';
import { fillRoute } from './route-path.js';
import type { ClientStats, Priority, RequestEvent, RequestTally } from './service-client.js';
import { serviceMessage } from './service-message.js';

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

/** One logical request; got turns it into one or more attempts. */
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

export interface Answer {
  status: number;
  body: unknown;
  /** The body's JSON text as received, when it parsed to an object or array (element-texts.ts slices items from it). */
  text?: string;
}

/** Parsed bodies to the text they came from, filled by got's JSON parser. */
const bodyTexts = new WeakMap<object, string>();
const parseWithGotDefault = got.defaults.options.parseJson;

function parseJson(text: string): unknown {
  const value = parseWithGotDefault(text);
  if (typeof value === 'object' && value !== null) bodyTexts.set(value, text);
  return value;
}

interface AttemptState {
  attempt: number;
  startedAt: number;
  last: FailureKind | undefined;
}

/**
 * The HTTP layer: headers, the shared token bucket, the retry policy, error
 * mapping. What it relies on in got 16 (read in got's source, core/index.js
 * and as-promise/index.js):
 *
 * - Retries are got's own. On a retry got builds a new Request from the same
 *   normalized options and runs `_makeRequest` again, which runs every
 *   `beforeRequest` hook again with `{retryCount}`. The hook below awaits a
 *   token from the RateLimiter, so every attempt, first or retry, takes one,
 *   and the loop itself stays got's: no hand-written retry loop here.
 * - got's request time-out is armed in `_onRequest`, after the hooks ran, so
 *   time spent waiting for a token does not count against `timeoutMs`.
 * - With `enforceRetryRules` false (set below: got 16's default is true)
 *   `retry.calculateDelay` is called for every failed attempt, whatever the
 *   method or status, and its answer alone decides: 0 means "give up",
 *   anything else is the wait. So POST searches are retried although POST is
 *   not in got's retry methods.
 * - A refused connection reaches `calculateDelay` as ECONNREFUSED on Node 24
 *   too. got 14 lost it there from Node 24.20 on, whose sockets then also
 *   report ERR_SOCKET_CLOSED_BEFORE_CONNECTION: the request failed at once,
 *   unretried, with that error instead.
 * - A 2xx body that fails JSON parsing raises `ParseError` through
 *   `_beforeError`, i.e. it reaches `calculateDelay` and can be retried. A body
 *   cut short before its Content-Length arrives as a `ReadError` with code
 *   `ERR_HTTP_CONTENT_LENGTH_MISMATCH`, also through `calculateDelay`.
 * - `Retry-After` is read from the failed answer's headers by
 *   retry-after.ts, not taken from `RetryObject.retryAfter`: got 16 drops
 *   fractions of a second, which the service sends.
 * - `RequestError.options` holds the request headers, the Authorization header
 *   included. No got error leaves this file: failures are mapped into the
 *   errors of ./errors.ts, which hold only strings and numbers.
 * - A request whose `signal` aborts is destroyed by got (its socket too); the
 *   fail-fast latch uses that, and p-queue's own `signal`, to cut the requests
 *   of a client in flight and in the bucket when its token is refused or the
 *   service cannot be reached (fail-fast-rule.ts). Each request also races the
 *   latch, so one waiting out a retry backoff fails at once too.
 */
export class Transport {
  readonly #options: TransportOptions;
  readonly #got: Got;
  readonly #agents: { http: http.Agent; https: https.Agent };
  readonly #stats: ClientStats = { requests: 0, retries: 0, status429: 0, retryWaitMs: 0, byStatus: {} };
  readonly #latch: FailFastLatch;
  readonly #host: string;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#latch = new FailFastLatch({ holdMs: options.failFastHoldMs, now: options.now });
    this.#host = new URL(options.baseUrl).host;
    this.#agents = {
      http: new http.Agent({ keepAlive: true }),
      https: new https.Agent({ keepAlive: true }),
    };
    const { token } = options;
    this.#got = got.extend({
      agent: this.#agents,
      timeout: { request: options.timeoutMs },
      responseType: 'json',
      parseJson,
      // A redirect could carry the Authorization header to another host; the
      // service documents none, so a 3xx is reported instead of followed.
      followRedirect: false,
      headers: {
        'api-version': options.apiVersionHeader,
        'accept-language': options.acceptLanguage,
        'user-agent': options.userAgent,
        accept: 'application/json',
      },
      hooks: {
        beforeRequest: [
          (request) => {
            // Revealed here, per attempt, where it goes on the wire.
            request.headers.authorization = `Token ${token.reveal()}`;
          },
        ],
      },
      retry: { limit: options.retry.limit },
    });
  }

  get stats(): Readonly<ClientStats> {
    return { ...this.#stats, byStatus: { ...this.#stats.byStatus } };
  }

  close(): void {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  async send(call: Call): Promise<Answer> {
    // Tripped: fail at once, with no token taken and nothing sent.
    const latched = this.#latch.error;
    if (latched !== undefined) throw latched;
    const guard = this.#latch.guard();
    try {
      return await this.#send(call, guard.signal, guard.tripped);
    } catch (error) {
      throw guard.signal.aborted ? (guard.signal.reason as Error) : error;
    } finally {
      guard.release();
    }
  }

  async #send(call: Call, signal: AbortSignal, tripped: Promise<never>): Promise<Answer> {
    const { limiter, now } = this.#options;
    const path = fillRoute(call.route, call.params);
    const state: AttemptState = { attempt: 0, startedAt: now(), last: undefined };
    const priority = () => (typeof call.priority === 'function' ? call.priority() : (call.priority ?? 0));
    const requestOptions: OptionsOfJSONResponseBodyWrapped = {
      method: call.method,
      responseType: 'json',
      resolveBodyOnly: false,
      hooks: {
        beforeRequest: [
          async (_options, context) => {
            await limiter.schedule(async () => undefined, { priority: priority(), signal });
            // Tripped while this one got its token: nothing goes out.
            signal.throwIfAborted();
            call.onSend?.();
            state.attempt = context.retryCount + 1;
            state.startedAt = now();
            this.#stats.requests += 1;
            countAttempt(call.tally);
          },
        ],
      },
      retry: {
        limit: this.#options.retry.limit,
        // got's rules (no POST, its own codes and statuses) stay out: the retry policy decides alone.
        enforceRetryRules: false,
        calculateDelay: (retry) => this.#afterFailure(call, state, retry),
      },
      signal,
    };
    if (call.searchParams !== undefined) requestOptions.searchParams = { ...call.searchParams };
    if (call.body !== undefined) requestOptions.json = call.body;

    let status: number;
    let body: unknown;
    try {
      const response = await Promise.race([
        this.#got<unknown>(`${this.#options.baseUrl}${path}`, requestOptions),
        tripped,
      ]);
      status = response.statusCode;
      body = response.body;
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      return this.#failed(call, path, state, error);
    }
    this.#latch.prove();
    this.#count(String(status));
    this.#emit({
      method: call.method,
      route: call.route,
      status,
      error: null,
      durationMs: now() - state.startedAt,
      attempt: state.attempt,
      retryWaitMs: 0,
    });
    if (status < 200 || status > 299) {
      throw new ApiError(`${call.method} ${this.#url(path)} answered an unexpected ${status}`, {
        status,
        route: `${call.method} ${call.route}`,
      });
    }
    const text = typeof body === 'object' && body !== null ? bodyTexts.get(body) : undefined;
    return text === undefined ? { status, body } : { status, body, text };
  }

  /** got's `calculateDelay`: one failed attempt in, a wait (or 0: give up) out. */
  #afterFailure(call: Call, state: AttemptState, retry: RetryObject): number {
    // Cut by the latch (waiting for a token, in flight, or between attempts): no further attempt.
    if (this.#latch.error !== undefined) return 0;
    const kind = failureKind(retry.error);
    state.last = kind;
    const status = kind.kind === 'status' ? kind.status : null;
    if (retry.error.response !== undefined) this.#latch.prove();
    this.#count(errorCode(kind));
    if (status === 429) this.#stats.status429 += 1;

    const idempotent = call.idempotent ?? true;
    const verdict = failFastVerdict({
      kind,
      attempt: retry.attemptCount,
      proven: this.#latch.proven,
      strikes: this.#latch.strikes,
      forbiddenRejectsToken: call.forbiddenRejectsToken === true,
      idempotent,
    });
    const decision = retryDecision(
      retry.attemptCount,
      { ...kind, idempotent },
      retryAfterMs(retry.error.response?.headers['retry-after'], this.#options.now()),
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
      // A body that broke off or did not parse still came with a status.
      status: retry.error.response?.statusCode ?? null,
      error: kind.kind === 'status' ? null : errorCode(kind),
      durationMs: this.#options.now() - state.startedAt,
      attempt: retry.attemptCount,
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
  #failed(call: Call, path: string, state: AttemptState, error: RequestError): Answer {
    const kind = state.last ?? failureKind(error);
    const route = `${call.method} ${call.route}`;
    if (kind.kind === 'status') {
      const { status } = kind;
      const body: unknown = error.response?.body;
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
        ? `${describeFailure(kind, this.#options.timeoutMs)}: ${this.#scrub(error.message, call)}`
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
    const explanation = status === null ? '' : `: ${this.#scrub(serviceMessage(error.response?.body), call)}`;
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
