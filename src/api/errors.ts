import { showCursor } from './cursor.js';
import type { Cursor } from './cursor.js';
import { FatalError, RetriableError, UserError } from '../errors.js';

/**
 * What every error of the API client carries besides its `code`. The classes
 * below sit on different branches of the ivsync error tree (a rejected token
 * is the user's to fix, exhausted retries may pass, anything else is fatal),
 * so they share this shape rather than a base class; `isApiFailure` tells them
 * apart from other errors.
 *
 * None of them holds a reference to the HTTP client's error objects: those
 * may carry the request, headers included, and so the token.
 */
export interface ApiFailure {
  readonly code: string;
  /** HTTP status of the last answer, null when none came. */
  readonly status: number | null;
  /** Method and templated path, e.g. `GET /v1/authentications/{service_id}` (no ids). */
  readonly route: string;
}

export function isApiFailure(error: unknown): error is Error & ApiFailure {
  return (
    error instanceof ApiError ||
    error instanceof AuthRejectedError ||
    error instanceof BadRequestError ||
    error instanceof RetriesExhaustedError ||
    error instanceof CursorLoopError ||
    error instanceof ServiceUnreachableError ||
    error instanceof RouteNotFoundError
  );
}

/** An answer the client does not expect: an undocumented status, or a body of the wrong shape. */
export class ApiError extends FatalError implements ApiFailure {
  readonly status: number | null;
  readonly route: string;

  constructor(message: string, details: { status: number | null; route: string; code?: string }) {
    super(details.code ?? 'API_ERROR', message);
    this.status = details.status;
    this.route = details.route;
  }
}

/** 401 on any route, or 403 on a route whose answer proves the token lacks access (health, searches). */
export class AuthRejectedError extends UserError implements ApiFailure {
  readonly status: number;
  readonly route: string;

  constructor(details: { status: number; route: string }) {
    super('AUTH_REJECTED', `the service rejected the token (${details.status})`);
    this.status = details.status;
    this.route = details.route;
  }
}

/**
 * The service could not be reached before any request had an answer: the
 * connection was refused, the host is unknown, or TLS failed. At the start of
 * a run that means a wrong base URL or port rather than a passing fault, so
 * the run stops at once instead of retrying for a minute. Names the host and
 * the cause, never the token.
 */
export class ServiceUnreachableError extends UserError implements ApiFailure {
  readonly status = null;
  readonly route: string;
  /** `host:port` of the base URL. */
  readonly host: string;

  constructor(details: { host: string; cause: string; route: string }) {
    super('SERVICE_UNREACHABLE', `cannot reach the service at ${details.host}: ${details.cause}`);
    this.route = details.route;
    this.host = details.host;
  }
}

/**
 * 404 on a route that always exists (health, the searches): the base URL is
 * not the service's root (`https://host/v1` makes every request go to
 * `/v1/v1/...`) or a configured v2 path is wrong. No later request can
 * succeed either, so it stops the run at once rather than costing one window
 * a run. Names the URL requested (the token is never in it) and the root to
 * try instead.
 */
export class RouteNotFoundError extends UserError implements ApiFailure {
  readonly status = 404;
  readonly route: string;
  /** The whole URL of the request that got the 404. */
  readonly url: string;

  constructor(details: { method: string; url: string; baseUrl: string; route: string }) {
    const hint = baseUrlHint(details.baseUrl);
    super('ROUTE_NOT_FOUND', `${details.method} ${details.url} answered 404 (no such route): ${hint}`);
    this.route = details.route;
    this.url = details.url;
  }
}

/** What to change: drop the path of a base URL that has one (`https://host/v1` -> `https://host`). */
export function baseUrlHint(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.pathname !== '/' && url.pathname !== '') {
    const root = `--base-url ${url.origin}`;
    return (
      `the base URL ${baseUrl} has a path (${url.pathname}); the routes carry their own, so give the service's ` +
      `root: ${root}`
    );
  }
  return `is ${baseUrl} the service's root? (for v2, check the paths under v2.paths in the config)`;
}

/** 400: incorrect headers (a wrong `Api-Version`) or a body the service refuses (a bad filter). */
export class BadRequestError extends UserError implements ApiFailure {
  readonly status = 400;
  readonly route: string;
  /** The service's own explanation, as far as it gave one. */
  readonly serviceMessage: string;

  constructor(details: { route: string; serviceMessage: string }) {
    super('BAD_REQUEST', `the service rejected the request (400): ${details.serviceMessage}`);
    this.route = details.route;
    this.serviceMessage = details.serviceMessage;
  }
}

/** Every attempt failed with a passing fault; running the command again later may succeed. */
export class RetriesExhaustedError extends RetriableError implements ApiFailure {
  readonly status: number | null;
  readonly route: string;
  readonly attempts: number;

  constructor(details: {
    method: string;
    path: string;
    route: string;
    attempts: number;
    status: number | null;
    lastCause: string;
  }) {
    const plural = details.attempts === 1 ? 'attempt' : 'attempts';
    super(
      'RETRIES_EXHAUSTED',
      `gave up on ${details.method} ${details.path} after ${details.attempts} ${plural}: ${details.lastCause}`,
      { cause: new Error(details.lastCause) },
    );
    this.status = details.status;
    this.route = details.route;
    this.attempts = details.attempts;
  }
}

/** The service handed out a cursor it had handed out before in the same pass: following it would never end. */
export class CursorLoopError extends FatalError implements ApiFailure {
  readonly status = null;
  readonly route: string;
  readonly cursor: Cursor;

  constructor(details: { route: string; cursor: Cursor }) {
    super('CURSOR_LOOP', `cursor loop: the service returned cursor ${showCursor(details.cursor)} twice`);
    this.route = details.route;
    this.cursor = details.cursor;
  }
}
