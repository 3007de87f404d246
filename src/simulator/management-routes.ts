import { accountOf, organizationNameOf } from './account.js';
import { decodeOffsetCursor, encodeOffsetCursor } from './cursor.js';
import { epochFromMicros, isoFromMicros } from './iso-time.js';
import { errorReply, ok, route, type Reply, type Route, type RouteRequest } from './route.js';
import { MAX_LIMIT } from './search-request.js';
import type { DomainRecord, WebhookRecord } from './webhook-registry.js';
import { parseWebhookCreate } from './webhook-request.js';
import type { World } from './world.js';

type ApiVersion = '1.4' | '2';

const timestamp = (micros: number): Record<string, unknown> => ({
  display: isoFromMicros(micros),
  epoch: epochFromMicros(micros),
});

function ownerObject(owner: string, apiVersion: ApiVersion): Record<string, unknown> {
  const account = accountOf(owner);
  return apiVersion === '1.4'
    ? { organization: { name: account.organizationName }, user: { username: account.username } }
    : { organization_id: account.organizationId, user_id: account.userId };
}

export function webhookObject(webhook: WebhookRecord, apiVersion: ApiVersion): Record<string, unknown> {
  return {
    webhook_uuid: webhook.uuid,
    channel: webhook.channel,
    create_timestamp: timestamp(webhook.createdMicros),
    endpoint: { type: 'url', value: webhook.endpoint },
    filters: webhook.rawFilters,
    webhook_owner: ownerObject(webhook.owner, apiVersion),
  };
}

function domainObject(domain: DomainRecord, apiVersion: ApiVersion): Record<string, unknown> {
  return {
    domain_uuid: domain.uuid,
    domain_name: domain.name,
    domain_owner: ownerObject(domain.owner, apiVersion),
    create_timestamp: timestamp(domain.createdMicros),
  };
}

/** Body {limit, cursor} of the webhook and domain searches; offset cursors (these lists are short). */
function pageOf<T>(
  all: readonly T[],
  list: string,
  body: unknown,
): { ok: true; page: T[]; next: string | null } | { ok: false; reply: Reply } {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    return { ok: false, reply: errorReply(400, 'invalid_request', 'the request body must be a JSON object') };
  }
  let limit = MAX_LIMIT;
  if (b.limit !== undefined && b.limit !== null) {
    if (typeof b.limit !== 'number' || !Number.isInteger(b.limit) || b.limit < 1 || b.limit > MAX_LIMIT) {
      return {
        ok: false,
        reply: errorReply(400, 'invalid_request', `limit: must be an integer between 1 and ${MAX_LIMIT}`),
      };
    }
    limit = b.limit;
  }
  let offset = 0;
  if (b.cursor !== undefined && b.cursor !== null) {
    const decoded = typeof b.cursor === 'string' ? decodeOffsetCursor(b.cursor, list) : null;
    if (decoded === null)
      return { ok: false, reply: errorReply(400, 'invalid_request', 'cursor: not a cursor of this list') };
    offset = decoded;
  }
  const page = all.slice(offset, offset + limit);
  const next = offset + limit < all.length ? encodeOffsetCursor(offset + limit, list) : null;
  return { ok: true, page, next };
}

function createWebhook(world: World, apiVersion: ApiVersion, allowHttp: boolean, request: RouteRequest): Reply {
  const parsed = parseWebhookCreate(request.body, {
    owner: request.owner,
    registeredDomains: world.webhooks.domainsOf(request.owner).map((d) => d.name),
    allowHttpLoopback: allowHttp,
    activeCount: world.webhooks.activeOf(request.owner).length,
  });
  if (!parsed.ok) {
    const code = parsed.status === 400 ? 'invalid_request' : parsed.status === 403 ? 'forbidden' : 'conflict';
    return errorReply(parsed.status, code, parsed.message);
  }
  const webhook = world.webhooks.create(
    request.owner,
    parsed.value,
    apiVersion,
    request.language,
    Math.round(request.nowMs * 1000),
  );
  return ok(webhookObject(webhook, apiVersion));
}

/** A webhook of the requester's organization, or undefined (unknown and not owned look the same). */
function ownWebhook(world: World, request: RouteRequest): WebhookRecord | undefined {
  const webhook = world.webhooks.get(request.params[0] ?? '');
  if (webhook === undefined) return undefined;
  return organizationNameOf(webhook.owner) === organizationNameOf(request.owner) ? webhook : undefined;
}

const webhookMissing = (apiVersion: ApiVersion): Reply =>
  apiVersion === '1.4'
    ? errorReply(403, 'forbidden', 'unknown webhook or not yours')
    : errorReply(404, 'not_found', 'unknown webhook');

/** Webhooks and registered domains, for both interfaces. */
export function managementRoutes(world: World, allowHttpWebhookEndpoints: boolean): Route[] {
  const routes: Route[] = [];
  for (const apiVersion of ['1.4', '2'] as const) {
    const prefix = apiVersion === '1.4' ? '/v1' : '/v2';
    const version = apiVersion === '1.4' ? 'v1' : 'v2';
    routes.push(
      // Webhook creation is the one route that also takes older versions (1.3 and above).
      route('POST', `${prefix}/webhooks`, apiVersion === '1.4' ? 'v1-webhook-create' : 'v2', (r) =>
        createWebhook(world, apiVersion, allowHttpWebhookEndpoints, r),
      ),
      route('GET', `${prefix}/webhooks/{webhook_uuid}`, version, (r) => {
        const webhook = ownWebhook(world, r);
        return webhook === undefined ? webhookMissing(apiVersion) : ok(webhookObject(webhook, apiVersion));
      }),
      route(
        'POST',
        `${prefix}/webhooks/{webhook_uuid}/deactivate`,
        version,
        (r) => {
          const webhook = ownWebhook(world, r);
          if (webhook === undefined || !webhook.active) return webhookMissing(apiVersion);
          webhook.active = false;
          return ok({ status: 'ok' });
        },
        false,
      ),
      route('POST', `${prefix}/search/webhooks`, version, (r) => {
        const paged = pageOf(world.webhooks.activeOf(r.owner), 'webhooks', r.body);
        if (!paged.ok) return paged.reply;
        return ok({
          item_count: paged.page.length,
          items: paged.page.map((w) => webhookObject(w, apiVersion)),
          next_cursor: paged.next,
        });
      }),
      route('POST', `${prefix}/search/domains`, version, (r) => {
        const paged = pageOf(world.webhooks.domainsOf(r.owner), 'domains', r.body);
        if (!paged.ok) return paged.reply;
        return ok({
          item_count: paged.page.length,
          items: paged.page.map((d) => domainObject(d, apiVersion)),
          next_cursor: paged.next,
        });
      }),
    );
  }
  return routes;
}
