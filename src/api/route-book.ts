import type { Cursor } from './cursor.js';
import type { Call } from './transport.js';
import type { ApiVersion, Resource, SearchRequest, VoucherRequest, WebhookCreate } from './service-client.js';

/**
 * How one interface version spells each operation: method, path, body and
 * which statuses are answers. The client is the same for both versions; only
 * the book differs.
 */
export interface RouteBook {
  readonly apiVersion: ApiVersion;
  health(): Call;
  get(resource: Resource, serviceId: string): Call;
  lookup(value: string): Call;
  search(resource: Resource, request: SearchRequest): Call;
  webhookCreate(input: WebhookCreate): Call;
  webhookSearch(cursor: Cursor | null): Call;
  webhookGet(uuid: string): Call;
  webhookDeactivate(uuid: string): Call;
  domainSearch(cursor: Cursor | null): Call;
  /** Absent on v1.4. */
  readonly v2?: {
    config(): Call;
    catalog(): Call;
    createVoucher(input: VoucherRequest): Call;
  };
}

/** Page size sent on every search: the maximum of both interfaces (v2 would otherwise default to 10). */
export { PAGE_SIZE as PAGE_LIMIT } from '../config/constants.js';

/** The webhook creation body, the same in both versions. */
export function webhookCreateBody(input: WebhookCreate): Record<string, unknown> {
  const body: Record<string, unknown> = {
    endpoint: { type: 'url', value: input.endpoint },
    // Revealed here because it goes on the wire: the service signs deliveries with it.
    secret_key: input.secretKey.reveal(),
    filters: input.filters,
  };
  if (input.channel !== undefined) body.channel = input.channel;
  return body;
}
