import type { ApiVersion, ResourceName as Resource } from '../config/constants.js';
import type { Secret } from '../config/secret.js';
import type { Cursor } from './cursor.js';

export type { ApiVersion, Resource };

/** A search filter as the service takes it (api-spec "Filter object"); passed through unchanged. */
export interface Filter {
  key: string;
  /** Exactly one of `value` and `values`. */
  value?: string;
  values?: string[];
  /** @default false */
  exclude?: boolean;
  /** @default 'canonical' */
  text_fields?: 'canonical' | 'verbatim';
}

export interface SearchRequest {
  /** Unix epoch seconds; either end may be open. */
  range?: { start: number | null; end: number | null };
  filters?: Filter[];
  /** The cursor to start from (a checkpoint), sent back as the service gave it; null or absent for the first page. */
  cursor?: Cursor | null;
  /**
   * Page size. 25 is the maximum of both interfaces; v2 would default to 10,
   * so it is always sent explicitly.
   * @default 25
   */
  limit?: number;
}

export interface SearchPage {
  items: unknown[];
  itemCount: number;
  /** `next_cursor` as sent; null on the last page (null, absent, "" or []). */
  nextCursor: Cursor | null;
  warnings: unknown[];
  /** The cursor that fetched this page. */
  cursor: Cursor | null;
  /** Each item's JSON text as the service sent it, when the body could be sliced (element-texts.ts). */
  itemTexts?: string[];
}

export interface Fetched {
  item: unknown;
  /** Top-level `warnings` of the answer, e.g. `fingerprint_parent_not_authorized`. */
  warnings: unknown[];
  /** The item's JSON text as the service sent it, when the body could be sliced (element-texts.ts). */
  itemText?: string;
}

/** A count of attempts sent, kept by whoever wants its own: a run counts its requests in one. */
export interface RequestTally {
  requests: number;
  /** Answers 429 met. @default 0 */
  throttled?: number;
  /** Milliseconds waited before retries. @default 0 */
  retryWaitMs?: number;
  /**
   * The tally this one is a part of, counted too: a run's refresh keeps its
   * own count of the requests it sent, and the run's still holds them all.
   * @default none
   */
  within?: RequestTally;
}

/** A request's place among those waiting for a token: higher goes first. A function is read as each attempt queues. */
export type Priority = number | (() => number);

export interface CallOptions {
  /**
   * Among requests waiting for a token, higher goes first.
   * @default 0
   */
  priority?: Priority;
  /** Also counts this call's attempts (each took a token), besides the client's own stats. @default none */
  tally?: RequestTally;
  /** Called as each attempt takes its token and leaves: what the service's round trip is timed from. @default none */
  onSend?: () => void;
}

/** Webhook filter (api-spec "POST /v1/webhooks"). */
export interface WebhookFilter {
  key: string;
  value?: string;
  values?: string[];
}

export interface WebhookCreate {
  /** HTTPS URL on a domain registered for the organization. */
  endpoint: string;
  /** At least 20 random characters; signs the deliveries. */
  secretKey: Secret;
  /** @default 'default' (the service's default) */
  channel?: string;
  /** Must include a filter on `activity.name`. */
  filters: WebhookFilter[];
}

export interface VoucherRequest {
  userId: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

export interface LoginVoucher {
  username: string;
  /** Lets the user sign in to the mobile app; as sensitive as a password. */
  loginVoucher: Secret;
}

interface DisplayName {
  name: string;
}

/** v2 authentication config (v2-routes). */
export interface AuthenticationConfig {
  config: {
    brands: Array<{
      brand_id: string;
      display: DisplayName;
      materials: Array<{ material_id: string; display: DisplayName }>;
      details: Array<{ field_alias: string; display: DisplayName }>;
    }>;
  };
  iat: number;
  exp: number;
}

/** v2 supported catalog (v2-routes). */
export interface SupportedCatalog {
  categories: Array<{
    product_category: string;
    customer_product_group: string;
    display: { product_category: string; customer_product_group: string };
    brands: Array<{
      brand_id: string;
      display: DisplayName;
      materials: Array<{ material_id: string; display: DisplayName }>;
    }>;
  }>;
}

/** One attempt, for metrics and logs. Deliberately carries no headers, bodies or ids. */
export interface RequestEvent {
  method: string;
  /** Templated path, e.g. `/v1/authentications/{service_id}`. */
  route: string;
  /** HTTP status, null when no answer came. */
  status: number | null;
  /** Error code when no answer came (`ECONNRESET`, `ETIMEDOUT`, ...), else null. */
  error: string | null;
  /** From the token being granted to the answer or failure. */
  durationMs: number;
  /** 1 for the first attempt. */
  attempt: number;
  /** Wait before the next attempt; 0 when none follows. */
  retryWaitMs: number;
}

export interface ClientStats {
  /** Attempts sent (each took a token). */
  requests: number;
  retries: number;
  status429: number;
  retryWaitMs: number;
  /** Attempts per HTTP status, or per error code when no answer came. */
  byStatus: Record<string, number>;
}

export interface ServiceClient {
  readonly apiVersion: ApiVersion;
  /** Resolves when the service accepts the token; AuthRejectedError when it does not. */
  health(): Promise<void>;
  /** null: not there or not accessible (403 on v1.4, 404 on v2). */
  get(resource: Resource, serviceId: string, options?: CallOptions): Promise<Fetched | null>;
  /** The authentication the service picks for a customer item id; null when none. */
  lookup(value: string, options?: CallOptions): Promise<Fetched | null>;
  searchPage(resource: Resource, request: SearchRequest, options?: CallOptions): Promise<SearchPage>;
  /**
   * Pages from `request.cursor` on. Lazy: a page is requested only when the
   * consumer asks for it, so a consumer that commits each page before asking
   * for the next never has more than one in memory. Stops after the page whose
   * `nextCursor` is null; throws CursorLoopError when a cursor (compared by
   * value) comes back.
   */
  pages(resource: Resource, request: SearchRequest, options?: CallOptions): AsyncIterable<SearchPage>;
  webhooks: {
    create(input: WebhookCreate): Promise<unknown>;
    /** Every active webhook, all pages. */
    list(): AsyncIterable<unknown>;
    get(uuid: string): Promise<unknown>;
    deactivate(uuid: string): Promise<void>;
  };
  domains: {
    list(): AsyncIterable<unknown>;
  };
  /** v2 only: a UserError on a v1.4 client. */
  config(options?: CallOptions): Promise<AuthenticationConfig>;
  /** v2 only. 503 is retried as the spec asks. */
  catalog(options?: CallOptions): Promise<SupportedCatalog>;
  /** v2 only. */
  createVoucher(input: VoucherRequest): Promise<LoginVoucher>;
  readonly stats: Readonly<ClientStats>;
  /** Closes idle keep-alive connections. The client must not be used afterwards. */
  close(): void;
}
