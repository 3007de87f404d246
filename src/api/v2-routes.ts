import { PAGE_LIMIT, webhookCreateBody } from './route-book.js';
import type { RouteBook } from './route-book.js';
import type { Resource, SearchRequest } from './service-client.js';

/**
 * Paths of the v2.0.0 operations. The service's documentation names the
 * operations but not their paths, so every one can be overridden by config.
 */
export interface V2Paths {
  getAuthentication: string;
  lookupAuthentication: string;
  searchAuthentications: string;
  getFingerprint: string;
  searchFingerprints: string;
  authenticationConfig: string;
  supportedCatalog: string;
  loginVouchers: string;
  createWebhook: string;
  searchWebhooks: string;
  getWebhook: string;
  deactivateWebhook: string;
  searchDomains: string;
}

export const DEFAULT_V2_PATHS: Readonly<V2Paths> = Object.freeze({
  getAuthentication: '/v2/authentications/{service_id}',
  lookupAuthentication: '/v2/lookup/authentications/{lookup_value}',
  searchAuthentications: '/v2/search/authentications',
  getFingerprint: '/v2/fingerprints/{service_id}',
  searchFingerprints: '/v2/search/fingerprints',
  authenticationConfig: '/v2/authentication-config',
  supportedCatalog: '/v2/supported-catalog',
  loginVouchers: '/v2/login-vouchers',
  createWebhook: '/v2/webhooks',
  searchWebhooks: '/v2/search/webhooks',
  getWebhook: '/v2/webhooks/{webhook_uuid}',
  deactivateWebhook: '/v2/webhooks/{webhook_uuid}/deactivate',
  searchDomains: '/v2/search/domains',
});

/** @default '2.0.0' */

/** v2 accepts extra body properties, so `cursor` rides along with the documented members. */
function searchBody(request: SearchRequest): Record<string, unknown> {
  return {
    limit: request.limit ?? PAGE_LIMIT,
    filters: request.filters !== undefined && request.filters.length > 0 ? request.filters : null,
    format_options: null,
    range: request.range ?? null,
    cursor: request.cursor ?? null,
  };
}

/** The v2.0.0 interface, over `paths` (defaults: DEFAULT_V2_PATHS). */
export function v2Routes(overrides: Partial<V2Paths> = {}): RouteBook {
  const paths: V2Paths = { ...DEFAULT_V2_PATHS };
  // An override left undefined (an unset config key) keeps the default.
  for (const [name, path] of Object.entries(overrides) as Array<[keyof V2Paths, string | undefined]>) {
    if (path !== undefined) paths[name] = path;
  }
  const oneId = { authentications: paths.getAuthentication, fingerprints: paths.getFingerprint };
  const search = { authentications: paths.searchAuthentications, fingerprints: paths.searchFingerprints };
  return {
    apiVersion: '2',
    // v2 documents no health route; the cheapest authenticated call stands in for it.
    health: () => ({
      method: 'POST',
      route: paths.searchAuthentications,
      body: searchBody({ limit: 1 }),
      forbiddenRejectsToken: true,
      alwaysExists: true,
    }),
    get: (resource: Resource, serviceId: string) => ({
      method: 'GET',
      route: oneId[resource],
      params: { service_id: serviceId },
      // Only authentications take these; images and catalog come inline so no second call is needed.
      ...(resource === 'authentications' ? { searchParams: { include_images: 'true', include_catalog: 'true' } } : {}),
      answers: [404],
    }),
    lookup: (value: string) => ({
      method: 'GET',
      route: paths.lookupAuthentication,
      params: { lookup_value: value },
      answers: [404],
    }),
    search: (resource: Resource, request: SearchRequest) => ({
      method: 'POST',
      route: search[resource],
      body: searchBody(request),
      forbiddenRejectsToken: true,
      alwaysExists: true,
    }),
    webhookCreate: (input) => ({
      method: 'POST',
      route: paths.createWebhook,
      body: webhookCreateBody(input),
      idempotent: false,
      secrets: [input.secretKey],
    }),
    webhookSearch: (cursor) => ({
      method: 'POST',
      route: paths.searchWebhooks,
      body: { limit: PAGE_LIMIT, cursor },
      forbiddenRejectsToken: true,
      alwaysExists: true,
    }),
    webhookGet: (uuid) => ({ method: 'GET', route: paths.getWebhook, params: { webhook_uuid: uuid } }),
    webhookDeactivate: (uuid) => ({
      method: 'POST',
      route: paths.deactivateWebhook,
      params: { webhook_uuid: uuid },
      idempotent: false,
    }),
    domainSearch: (cursor) => ({
      method: 'POST',
      route: paths.searchDomains,
      body: { limit: PAGE_LIMIT, cursor },
      forbiddenRejectsToken: true,
      alwaysExists: true,
    }),
    v2: {
      config: () => ({ method: 'GET', route: paths.authenticationConfig }),
      catalog: () => ({ method: 'GET', route: paths.supportedCatalog }),
      createVoucher: (input) => ({
        method: 'POST',
        route: paths.loginVouchers,
        body: {
          unique_user_id: input.userId,
          email: input.email,
          first_name: input.firstName ?? null,
          last_name: input.lastName ?? null,
        },
        // A second create answers 409 "user already has a voucher".
        idempotent: false,
      }),
    },
  };
}
