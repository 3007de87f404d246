import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalizeItems, normalizeMixedItems } from '../../src/normalize/normalize-item.js';
import type { ApiVersion, Resource } from '../../src/normalize/rows.js';
import { OBSERVED_AT, v14Authentication, v14Compare, v14Register, v2Authentication, v2Compare } from './fixtures.js';
import { accepted, ctx, rejected } from './helpers.js';

type Item = Record<string, unknown>;

/** A fixture with one change, by JSON path (a value of undefined removes the key). */
function changed(base: () => Item, path: string, value: unknown): Item {
  const item = base();
  const keys = path.split('.');
  let at: Item = item;
  for (const key of keys.slice(0, -1)) at = at[key] as Item;
  const last = keys[keys.length - 1] as string;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return item;
}

const cases: Array<{
  name: string;
  resource: Resource;
  version: ApiVersion;
  item: unknown;
  reason: string;
  serviceId: string | null;
}> = [
  {
    name: 'not an object',
    resource: 'authentications',
    version: '1.4',
    item: ['A-1'],
    reason: '(item): expected an object, got array',
    serviceId: null,
  },
  {
    name: 'null item',
    resource: 'fingerprints',
    version: '2',
    item: null,
    reason: '(item): expected an object, got null',
    serviceId: null,
  },
  {
    name: 'service_id missing',
    resource: 'authentications',
    version: '1.4',
    item: changed(v14Authentication, 'service_id', undefined),
    reason: 'service_id: expected a non-empty string, got nothing',
    serviceId: null,
  },
  {
    name: 'service_id a number',
    resource: 'authentications',
    version: '2',
    item: changed(v2Authentication, 'service_id', 42),
    reason: 'service_id: expected a non-empty string, got number',
    serviceId: null,
  },
  {
    name: 'service_id empty',
    resource: 'fingerprints',
    version: '1.4',
    item: changed(v14Register, 'service_id', ''),
    reason: 'service_id: expected a non-empty string, got an empty string',
    serviceId: null,
  },
  {
    name: 'epoch a string',
    resource: 'authentications',
    version: '1.4',
    item: changed(v14Authentication, 'timestamp.epoch', '1795316777'),
    reason: 'timestamp.epoch: expected a number, got string',
    serviceId: 'A-1001',
  },
  {
    name: 'epoch missing',
    resource: 'fingerprints',
    version: '1.4',
    item: changed(v14Register, 'timestamp.epoch', undefined),
    reason: 'timestamp.epoch: expected a number, got nothing',
    serviceId: 'F-2001',
  },
  {
    name: 'timestamp missing',
    resource: 'authentications',
    version: '1.4',
    item: changed(v14Authentication, 'timestamp', undefined),
    reason: 'timestamp.epoch: expected a number, got nothing',
    serviceId: 'A-1001',
  },
  {
    name: 'timestamp not an object',
    resource: 'authentications',
    version: '1.4',
    item: changed(v14Authentication, 'timestamp', 1795316777),
    reason: 'timestamp: expected an object, got number',
    serviceId: 'A-1001',
  },
  {
    name: 'final not a boolean',
    resource: 'authentications',
    version: '1.4',
    item: changed(v14Authentication, 'status.result.final', 'yes'),
    reason: 'status.result.final: expected a boolean, got string',
    serviceId: 'A-1001',
  },
  {
    name: 'final not a boolean (v2)',
    resource: 'fingerprints',
    version: '2',
    item: changed(v2Compare, 'status.result.final', 1),
    reason: 'status.result.final: expected a boolean, got number',
    serviceId: 'V2-F-2',
  },
  {
    name: 'activity.name of the other resource',
    resource: 'authentications',
    version: '1.4',
    item: v14Compare(),
    reason: 'activity.name: expected "authentication", got "fingerprint"',
    serviceId: 'F-2002',
  },
  {
    name: 'activity.name of the other resource (v2)',
    resource: 'fingerprints',
    version: '2',
    item: v2Authentication(),
    reason: 'activity.name: expected "fingerprint", got "authentication"',
    serviceId: 'V2-A-1',
  },
  {
    name: 'brand neither string nor object',
    resource: 'authentications',
    version: '1.4',
    item: changed(v14Authentication, 'properties.brand', 7),
    reason: 'properties.brand: expected a string or an object, got number',
    serviceId: 'A-1001',
  },
  {
    name: 'owner an array',
    resource: 'fingerprints',
    version: '1.4',
    item: changed(v14Compare, 'owner', []),
    reason: 'owner: expected an object, got array',
    serviceId: 'F-2002',
  },
  {
    name: 'photo entry a number',
    resource: 'authentications',
    version: '1.4',
    item: changed(v14Authentication, 'images.photos', ['https://x/1.jpg', 3]),
    reason: 'images.photos[1]: expected a string or an object, got number',
    serviceId: 'A-1001',
  },
  {
    name: 'parent a string',
    resource: 'fingerprints',
    version: '1.4',
    item: changed(v14Compare, 'fingerprint_parent', 'F-2001'),
    reason: 'fingerprint_parent: expected an object, got string',
    serviceId: 'F-2002',
  },
  {
    name: 'update_counter a string',
    resource: 'authentications',
    version: '1.4',
    item: { ...v14Authentication(), update_counter: '3' },
    reason: 'update_counter: expected an integer, got string',
    serviceId: 'A-1001',
  },
  {
    name: 'v2 created_at missing',
    resource: 'authentications',
    version: '2',
    item: changed(v2Authentication, 'timestamp.created_at', undefined),
    reason: 'timestamp.created_at: expected an ISO 8601 date-time, got nothing',
    serviceId: 'V2-A-1',
  },
  {
    name: 'v2 created_at not a date-time',
    resource: 'authentications',
    version: '2',
    item: changed(v2Authentication, 'timestamp.created_at', 'yesterday'),
    reason: 'timestamp.created_at: expected an ISO 8601 date-time, got "yesterday"',
    serviceId: 'V2-A-1',
  },
  {
    name: 'v2 created_at an epoch number',
    resource: 'fingerprints',
    version: '2',
    item: changed(v2Compare, 'timestamp.created_at', 1795316777),
    reason: 'timestamp.created_at: expected an ISO 8601 date-time, got number',
    serviceId: 'V2-F-2',
  },
  {
    name: 'v2 last_updated_at impossible date',
    resource: 'fingerprints',
    version: '2',
    item: changed(v2Compare, 'timestamp.last_updated_at', '2026-02-30T00:00:00Z'),
    reason: 'timestamp.last_updated_at: expected an ISO 8601 date-time, got "2026-02-30T00:00:00Z"',
    serviceId: 'V2-F-2',
  },
  // Times outside the years every target stores (PostgreSQL has no year 0): rejected, not a failed page.
  {
    name: 'epoch past the year 9999',
    resource: 'authentications',
    version: '1.4',
    item: changed(v14Authentication, 'timestamp.epoch', 253_402_300_800),
    reason: 'timestamp.epoch: expected epoch seconds in the years 1 to 9999, got 253402300800',
    serviceId: 'A-1001',
  },
  {
    name: 'v2 created_at in the year 0',
    resource: 'authentications',
    version: '2',
    item: changed(v2Authentication, 'timestamp.created_at', '0000-12-31T23:59:59Z'),
    reason: 'timestamp.created_at: expected a date-time in the years 1 to 9999, got "0000-12-31T23:59:59Z"',
    serviceId: 'V2-A-1',
  },
  {
    name: 'v2 last_updated_at in the year 0',
    resource: 'fingerprints',
    version: '2',
    item: changed(v2Compare, 'timestamp.last_updated_at', '0000-06-01T00:00:00+00:00'),
    reason: 'timestamp.last_updated_at: expected a date-time in the years 1 to 9999, got "0000-06-01T00:00:00+00:00"',
    serviceId: 'V2-F-2',
  },
  {
    name: 'v2 retake_required a string',
    resource: 'authentications',
    version: '2',
    item: changed(v2Authentication, 'status.retake.retake_required', 'no'),
    reason: 'status.retake.retake_required: expected a boolean, got string',
    serviceId: 'V2-A-1',
  },
  {
    name: 'v2 customer_item_id a number',
    resource: 'authentications',
    version: '2',
    item: changed(v2Authentication, 'properties.customer_item_id', 5),
    reason: 'properties.customer_item_id: expected a string, got number',
    serviceId: 'V2-A-1',
  },
  {
    name: 'v2 image entry a number',
    resource: 'authentications',
    version: '2',
    item: changed(v2Authentication, 'images', { front: 1 }),
    reason: 'images.front: expected a string or an object, got number',
    serviceId: 'V2-A-1',
  },
];

describe('rejections', () => {
  it.each(cases)('$name', ({ resource, version, item, reason, serviceId }) => {
    const r = rejected(resource, version, item);
    const raw = JSON.stringify(item);
    expect(r).toEqual({
      id: createHash('sha256').update(`${resource}\n${reason}\n${raw}`).digest('hex'),
      resource,
      service_id: serviceId,
      reason,
      raw,
      seen_at: OBSERVED_AT,
      account: 'default',
    });
  });

  it('gives the same id to the same bad item seen twice, a different one to another', () => {
    const bad = changed(v14Authentication, 'timestamp.epoch', 'x');
    const first = rejected('authentications', '1.4', bad);
    const again = rejected(
      'authentications',
      '1.4',
      JSON.parse(JSON.stringify(bad)),
      ctx({ observedAt: '2027-01-01T00:00:00.000000Z' }),
    );
    const other = rejected('authentications', '1.4', { ...bad, service_id: 'A-other' });
    expect(again.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
  });
});

describe('tolerance', () => {
  it('keeps unknown keys in raw and is not bothered by them, at any depth', () => {
    const item = v14Authentication();
    item['new_top_level'] = { anything: [1, 2, 3] };
    (item['status'] as Item)['reviewer'] = 'someone';
    (item['properties'] as Item)['colour'] = { id: 'red' };
    const s = accepted('authentications', '1.4', item);
    expect(JSON.parse(s.row.raw)).toEqual(item);
    const plain = accepted('authentications', '1.4', v14Authentication());
    expect({ ...s.row, raw: '' }).toEqual({ ...plain.row, raw: '' });
  });

  it('reads null and absent optional fields as null', () => {
    const item = changed(v2Authentication, 'owner', null);
    (item['status'] as Item)['retake'] = undefined;
    item['certificate'] = null;
    item['text_fields'] = null;
    item['images'] = null;
    const s = accepted('authentications', '2', item);
    expect([s.row.organization_id, s.row.retake_required, s.row.certificate_id, s.row.us_size]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    expect([s.textFields, s.images]).toEqual([[], []]);
  });
});

describe('batches', () => {
  it('a page mixing good and bad items gives both, in item order', () => {
    const bad1 = changed(v14Authentication, 'status.result.final', 'no');
    const good2 = { ...v14Authentication(), service_id: 'A-1002' };
    const batch = normalizeItems('authentications', '1.4', [v14Authentication(), bad1, 'junk', good2], ctx());
    expect(batch.sessions.map((s) => s.row.service_id)).toEqual(['A-1001', 'A-1002']);
    expect(batch.rejected.map((r) => [r.service_id, r.reason])).toEqual([
      ['A-1001', 'status.result.final: expected a boolean, got string'],
      [null, '(item): expected an object, got string'],
    ]);
  });

  it('a delivery of both resources normalizes each by its activity.name', () => {
    const unknown = { service_id: 'X-1', activity: { name: 'appraisal' } };
    const batch = normalizeMixedItems('1.4', [v14Authentication(), v14Register(), unknown], ctx({ source: 'webhook' }));
    expect(batch.sessions.map((s) => [s.resource, s.row.service_id])).toEqual([
      ['authentications', 'A-1001'],
      ['fingerprints', 'F-2001'],
    ]);
    expect(batch.rejected.map((r) => [r.resource, r.service_id, r.reason])).toEqual([
      ['sessions', 'X-1', 'activity.name: expected "authentication" or "fingerprint", got "appraisal"'],
    ]);
  });
});
