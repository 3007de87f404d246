import type { World } from './world.js';
import { errorReply, ok, route, type Reply, type Route, type RouteRequest } from './route.js';
import { olderCopy } from './poison.js';
import { parseSearchRequest } from './search-request.js';
import type { ServiceWarning } from './render-item.js';
import type { SessionRecord, SimResource } from './session-record.js';

type ApiVersion = '1.4' | '2';

const V1_PAGE = 25;
const V2_PAGE = 10;

function searchReply(world: World, resource: SimResource, apiVersion: ApiVersion, request: RouteRequest): Reply {
  const parsed = parseSearchRequest(request.body, resource, apiVersion === '1.4' ? V1_PAGE : V2_PAGE);
  if (!parsed.ok) return errorReply(400, 'invalid_request', parsed.message);
  const outcome = world.search(request.owner, resource, parsed.value, apiVersion);
  if (!outcome.ok) return errorReply(400, 'invalid_request', outcome.message);
  if (parsed.value.returnIds) {
    return ok({
      service_id_count: outcome.records.length,
      service_ids: outcome.records.map((r) => r.serviceId),
      next_cursor: outcome.nextCursor,
    });
  }
  const warnings: ServiceWarning[] = [];
  const items = outcome.records.flatMap((record) => {
    // A duplicate is served twice: an older copy first (see poison.ts).
    const copies = record.bad === 'duplicate_on_page' ? [olderCopy(record), record] : [record];
    return copies.map((copy) => {
      const rendered = world.render(copy, {
        viewer: request.owner,
        apiVersion,
        language: request.language,
        ...(parsed.value.photos && apiVersion === '1.4' ? { photosAtMs: request.nowMs } : {}),
      });
      if (rendered.warning !== null) warnings.push(rendered.warning);
      return rendered.item;
    });
  });
  const body: Record<string, unknown> = { item_count: items.length, items, next_cursor: outcome.nextCursor };
  if (warnings.length > 0) body.warnings = warnings;
  return ok(body);
}

/** v1.4 answers 403 for missing and not-owned alike; v2 answers 404. */
function notThere(apiVersion: ApiVersion): Reply {
  return apiVersion === '1.4'
    ? errorReply(403, 'forbidden', 'the session does not exist or is not accessible')
    : errorReply(404, 'not_found', 'the session does not exist');
}

function getReply(world: World, resource: SimResource, apiVersion: ApiVersion, request: RouteRequest): Reply {
  const record = world.visible(request.owner, resource, request.params[0] ?? '');
  return record === undefined ? notThere(apiVersion) : itemReply(world, record, apiVersion, request);
}

function lookupReply(world: World, apiVersion: ApiVersion, request: RouteRequest): Reply {
  const record = world.lookup(request.owner, request.params[0] ?? '', apiVersion === '1.4' ? 'first-final' : 'latest');
  return record === undefined ? notThere(apiVersion) : itemReply(world, record, apiVersion, request);
}

/** `{ item }` as the by-id and lookup routes answer it, with the response's warnings when the item has one. */
function itemReply(world: World, record: SessionRecord, apiVersion: ApiVersion, request: RouteRequest): Reply {
  const photos = request.query.get('format_options__return_item_photos') === 'true';
  const rendered = world.render(record, {
    viewer: request.owner,
    apiVersion,
    language: request.language,
    ...(photos && apiVersion === '1.4' ? { photosAtMs: request.nowMs } : {}),
    images: request.query.get('include_images') === 'true',
  });
  return ok(
    rendered.warning === null ? { item: rendered.item } : { item: rendered.item, warnings: [rendered.warning] },
  );
}

/** Retrieval, lookup and search of sessions, for both interfaces. */
export function sessionRoutes(world: World): Route[] {
  return [
    route('GET', '/v1/health', 'v1', () => ok({ status: 'ok' })),
    route('GET', '/v1/authentications/{service_id}', 'v1', (r) => getReply(world, 'authentications', '1.4', r)),
    route('GET', '/v1/lookup/authentications/{lookup_value}', 'v1', (r) => lookupReply(world, '1.4', r)),
    route('POST', '/v1/search/authentications', 'v1', (r) => searchReply(world, 'authentications', '1.4', r)),
    route('GET', '/v1/fingerprints/{service_id}', 'v1', (r) => getReply(world, 'fingerprints', '1.4', r)),
    route('POST', '/v1/search/fingerprints', 'v1', (r) => searchReply(world, 'fingerprints', '1.4', r)),
    route('GET', '/v2/authentications/{service_id}', 'v2', (r) => getReply(world, 'authentications', '2', r)),
    route('GET', '/v2/lookup/authentications/{lookup_value}', 'v2', (r) => lookupReply(world, '2', r)),
    route('POST', '/v2/search/authentications', 'v2', (r) => searchReply(world, 'authentications', '2', r)),
    route('GET', '/v2/fingerprints/{service_id}', 'v2', (r) => getReply(world, 'fingerprints', '2', r)),
    route('POST', '/v2/search/fingerprints', 'v2', (r) => searchReply(world, 'fingerprints', '2', r)),
  ];
}
