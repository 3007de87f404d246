import { performance } from 'node:perf_hooks';
import { Secret } from '../config/secret.js';
import type { Cursor } from './cursor.js';
import { UserError } from '../errors.js';
import { parseBaseUrl } from './base-url.js';
import { cursorPages } from './cursor-pages.js';
import { readFetched, readObject, readPage } from './envelopes.js';
import { ApiError } from './errors.js';
import type { RateLimiter } from './rate-limiter.js';
import type { RetryPolicyOptions } from './retry-policy.js';
import type { RouteBook } from './route-book.js';
import type {
  ApiVersion,
  AuthenticationConfig,
  CallOptions,
  ClientStats,
  Fetched,
  LoginVoucher,
  RequestEvent,
  Resource,
  SearchPage,
  SearchRequest,
  ServiceClient,
  SupportedCatalog,
  VoucherRequest,
  WebhookCreate,
} from './service-client.js';
import { Transport } from './transport.js';
import type { Call } from './transport.js';
import { defaultUserAgent } from './user-agent.js';
import { V14_ROUTES } from './v14-routes.js';
import { v2Routes } from './v2-routes.js';
import type { V2Paths } from './v2-routes.js';

export type * from './service-client.js';
export type { RetryPolicyOptions } from './retry-policy.js';
export type { V2Paths } from './v2-routes.js';

export interface ClientOptions {
  /** Service root. https is required; plain http only for loopback hosts (127.0.0.0/8, ::1, localhost). */
  baseUrl: string;
  token: Secret;
  apiVersion: ApiVersion;
  /** The bucket of this token, shared with every other client and worker using it. */
  limiter: RateLimiter;
  /** Per attempt, from the request being sent (after the token wait) to the full answer (config `http.timeoutMs`). */
  timeoutMs: number;
  /** Language of display strings (config `http.acceptLanguage`). */
  acceptLanguage: 'en' | 'ja';
  /** The retry policy (config `http.retry*`). */
  retry: RetryPolicyOptions;
  /** v2 only; the v2 documentation leaves header and paths open, so config sets them (config `v2`). */
  v2: {
    apiVersionHeader: string;
    /** Overrides of DEFAULT_V2_PATHS. */
    paths: Partial<V2Paths>;
  };
  /**
   * Jitter source for the retry backoff.
   * @default Math.random
   */
  random?: () => number;
  /**
   * Monotonic milliseconds, for `RequestEvent.durationMs`.
   * @default performance.now
   */
  now?: () => number;
  /** @default `ivsync/<package version>` */
  userAgent?: string;
  /** Called once per attempt, for metrics and logs. Never sees headers or bodies. */
  onRequest?: (event: RequestEvent) => void;
  /**
   * How long the client fails every request at once after its token was
   * refused or the service proved unreachable at the start, before it tries
   * again (a daemon's later run).
   * @default 60_000
   */
  failFastHoldMs?: number;
}

export function createClient(options: ClientOptions): ServiceClient {
  const baseUrl = parseBaseUrl(options.baseUrl);
  if (options.apiVersion !== '1.4' && options.apiVersion !== '2') {
    throw new UserError(
      'INVALID_API_VERSION',
      `the API version must be 1.4 or 2, got ${JSON.stringify(options.apiVersion)}`,
    );
  }
  const routes = options.apiVersion === '2' ? v2Routes(options.v2.paths) : V14_ROUTES;
  const transport = new Transport({
    baseUrl,
    token: options.token,
    apiVersionHeader: options.apiVersion === '2' ? options.v2.apiVersionHeader : '1.4',
    acceptLanguage: options.acceptLanguage,
    userAgent: options.userAgent ?? defaultUserAgent(),
    limiter: options.limiter,
    timeoutMs: options.timeoutMs,
    retry: options.retry,
    random: options.random ?? Math.random,
    now: options.now ?? (() => performance.now()),
    failFastHoldMs: options.failFastHoldMs ?? 60_000,
    onRequest: options.onRequest,
  });
  return new HttpServiceClient(routes, transport);
}

/** One client for both interface versions; the RouteBook holds what differs. */
class HttpServiceClient implements ServiceClient {
  readonly #routes: RouteBook;
  readonly #transport: Transport;

  readonly webhooks: ServiceClient['webhooks'];
  readonly domains: ServiceClient['domains'];

  constructor(routes: RouteBook, transport: Transport) {
    this.#routes = routes;
    this.#transport = transport;
    this.webhooks = {
      create: async (input: WebhookCreate) => (await this.#send(routes.webhookCreate(input))).body,
      list: () => this.#allItems((cursor) => routes.webhookSearch(cursor)),
      get: async (uuid: string) =>
        readObject((await this.#send(routes.webhookGet(uuid))).body, routes.webhookGet(uuid).route),
      deactivate: async (uuid: string) => {
        await this.#send(routes.webhookDeactivate(uuid));
      },
    };
    this.domains = {
      list: () => this.#allItems((cursor) => routes.domainSearch(cursor)),
    };
  }

  get apiVersion(): ApiVersion {
    return this.#routes.apiVersion;
  }

  get stats(): Readonly<ClientStats> {
    return this.#transport.stats;
  }

  async health(): Promise<void> {
    const call = this.#routes.health();
    const { body } = await this.#send(call);
    // v1.4 answers { status: 'ok' }; the v2 stand-in is a search, whose 200 is proof enough.
    if (this.#routes.apiVersion === '1.4') {
      const status = readObject(body, call.route).status;
      if (status !== 'ok') {
        throw new ApiError(`the health check answered status ${JSON.stringify(status)} instead of "ok"`, {
          status: 200,
          route: `GET ${call.route}`,
          code: 'UNHEALTHY',
        });
      }
    }
  }

  get(resource: Resource, serviceId: string, options: CallOptions = {}): Promise<Fetched | null> {
    return this.#fetchOne(this.#routes.get(resource, serviceId), options);
  }

  lookup(value: string, options: CallOptions = {}): Promise<Fetched | null> {
    return this.#fetchOne(this.#routes.lookup(value), options);
  }

  async searchPage(resource: Resource, request: SearchRequest, options: CallOptions = {}): Promise<SearchPage> {
    const call = this.#routes.search(resource, request);
    const { body, text } = await this.#send({ ...call, ...callOptions(options) });
    return readPage(body, request.cursor ?? null, `${call.method} ${call.route}`, text);
  }

  pages(resource: Resource, request: SearchRequest, options: CallOptions = {}): AsyncIterable<SearchPage> {
    const call = this.#routes.search(resource, request);
    return cursorPages(
      (cursor) => this.searchPage(resource, { ...request, cursor }, options),
      request.cursor ?? null,
      `${call.method} ${call.route}`,
    );
  }

  async config(options: CallOptions = {}): Promise<AuthenticationConfig> {
    const call = this.#v2('config').config();
    const body = readObject((await this.#send({ ...call, ...callOptions(options) })).body, call.route);
    if (!isAuthenticationConfig(body)) {
      throw new ApiError(`GET ${call.route} answered without config.brands`, {
        status: 200,
        route: `GET ${call.route}`,
        code: 'MALFORMED_RESPONSE',
      });
    }
    return body;
  }

  async catalog(options: CallOptions = {}): Promise<SupportedCatalog> {
    const call = this.#v2('catalog').catalog();
    const body = readObject((await this.#send({ ...call, ...callOptions(options) })).body, call.route);
    if (!isSupportedCatalog(body)) {
      throw new ApiError(`GET ${call.route} answered without categories`, {
        status: 200,
        route: `GET ${call.route}`,
        code: 'MALFORMED_RESPONSE',
      });
    }
    return body;
  }

  async createVoucher(input: VoucherRequest): Promise<LoginVoucher> {
    const call = this.#v2('createVoucher').createVoucher(input);
    const body = readObject((await this.#send(call)).body, call.route);
    if (typeof body.username !== 'string' || typeof body.login_voucher !== 'string') {
      throw new ApiError(`POST ${call.route} answered without username and login_voucher`, {
        status: 200,
        route: `POST ${call.route}`,
        code: 'MALFORMED_RESPONSE',
      });
    }
    return { username: body.username, loginVoucher: new Secret(body.login_voucher) };
  }

  close(): void {
    this.#transport.close();
  }

  #send(call: Call): ReturnType<Transport['send']> {
    return this.#transport.send(call);
  }

  async #fetchOne(call: Call, options: CallOptions): Promise<Fetched | null> {
    const answer = await this.#send({ ...call, ...callOptions(options) });
    if (call.answers?.includes(answer.status) === true) return null;
    return readFetched(answer.body, `${call.method} ${call.route}`, answer.text);
  }

  /** Every item of a paged listing (webhooks, domains), page after page. */
  async *#allItems(callFor: (cursor: Cursor | null) => Call): AsyncGenerator<unknown, void, undefined> {
    const first = callFor(null);
    const route = `${first.method} ${first.route}`;
    const fetchPage = async (cursor: Cursor | null): Promise<SearchPage> =>
      readPage((await this.#send(callFor(cursor))).body, cursor, route);
    for await (const page of cursorPages(fetchPage, null, route)) {
      yield* page.items;
    }
  }

  #v2<K extends keyof NonNullable<RouteBook['v2']>>(operation: K): NonNullable<RouteBook['v2']> {
    const v2 = this.#routes.v2;
    if (v2 === undefined) {
      throw new UserError('V2_ONLY', `${operation} is available only with API version 2 (--api-version 2)`);
    }
    return v2;
  }
}

/** What a Call takes of the caller's options. */
function callOptions(options: CallOptions): Pick<Call, 'priority' | 'tally' | 'onSend'> {
  const { tally, onSend } = options;
  return {
    priority: options.priority ?? 0,
    ...(tally === undefined ? {} : { tally }),
    ...(onSend === undefined ? {} : { onSend }),
  };
}

function isRecordWithArray(value: unknown, key: string): boolean {
  return typeof value === 'object' && value !== null && Array.isArray((value as Record<string, unknown>)[key]);
}

/** The shape the client relies on (`config.brands`); the rest is the service's to describe. */
function isAuthenticationConfig(body: Record<string, unknown>): body is Record<string, unknown> & AuthenticationConfig {
  return isRecordWithArray(body.config, 'brands');
}

/** The shape the client relies on (`categories`); the rest is the service's to describe. */
function isSupportedCatalog(body: Record<string, unknown>): body is Record<string, unknown> & SupportedCatalog {
  return Array.isArray(body.categories);
}
