import { PAGE_LIMIT, webhookCreateBody } from './route-book.js';
import type { RouteBook } from './route-book.js';
import type { Resource, SearchRequest } from './service-client.js';

const ONE_ID = {
  authentications: '/v1/authentications/{service_id}',
  fingerprints: '/v1/fingerprints/{service_id}',
} as const;
const SEARCH = { authentications: '/v1/search/authentications', fingerprints: '/v1/search/fingerprints' } as const;

/** Members left out take the service's documented defaults. */
function searchBody(request: SearchRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { limit: request.limit ?? PAGE_LIMIT };
  if (request.filters !== undefined && request.filters.length > 0) body.filters = request.filters;
  if (request.range !== undefined) body.range = request.range;
  // Sent back in the shape it came in (a string, an array, ...): the cursor is opaque.
  if (request.cursor !== undefined && request.cursor !== null) body.cursor = request.cursor;
  return body;
}

/** The v1.4 interface (api-spec "Endpoints"). */
export const V14_ROUTES: RouteBook = {
  apiVersion: '1.4',
  health: () => ({ method: 'GET', route: '/v1/health', forbiddenRejectsToken: true, alwaysExists: true }),
  // v1.4 answers 403 both for a missing and for someone else's session; the two are indistinguishable.
  get: (resource: Resource, serviceId: string) => ({
    method: 'GET',
    route: ONE_ID[resource],
    params: { service_id: serviceId },
    answers: [403],
  }),
  lookup: (value: string) => ({
    method: 'GET',
    route: '/v1/lookup/authentications/{lookup_value}',
    params: { lookup_value: value },
    answers: [403],
  }),
  search: (resource: Resource, request: SearchRequest) => ({
    method: 'POST',
    route: SEARCH[resource],
    body: searchBody(request),
    forbiddenRejectsToken: true,
    alwaysExists: true,
  }),
  webhookCreate: (input) => ({
    method: 'POST',
    route: '/v1/webhooks',
    body: webhookCreateBody(input),
    idempotent: false,
    secrets: [input.secretKey],
  }),
  webhookSearch: (cursor) => ({
    method: 'POST',
    route: '/v1/search/webhooks',
    body: cursor === null ? { limit: PAGE_LIMIT } : { limit: PAGE_LIMIT, cursor },
    forbiddenRejectsToken: true,
    alwaysExists: true,
  }),
  webhookGet: (uuid) => ({ method: 'GET', route: '/v1/webhooks/{webhook_uuid}', params: { webhook_uuid: uuid } }),
  // A second deactivation answers 403 (only active webhooks can be deactivated), so no blind resend.
  webhookDeactivate: (uuid) => ({
    method: 'POST',
    route: '/v1/webhooks/{webhook_uuid}/deactivate',
    params: { webhook_uuid: uuid },
    idempotent: false,
  }),
  domainSearch: (cursor) => ({
    method: 'POST',
    route: '/v1/search/domains',
    body: cursor === null ? { limit: PAGE_LIMIT } : { limit: PAGE_LIMIT, cursor },
    forbiddenRejectsToken: true,
    alwaysExists: true,
  }),
};
