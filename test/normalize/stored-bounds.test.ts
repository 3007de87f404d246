import { describe, expect, it } from 'vitest';
import { normalizeItem } from '../../src/normalize/normalize-item.js';
import { rejectedRow } from '../../src/normalize/rejected-row.js';
import {
  MAX_DEPTH,
  MAX_KEY_BYTES,
  nestsDeeperThan,
  oversizedKey,
  textNestsDeeperThan,
  TOO_DEEP,
} from '../../src/normalize/stored-bounds.js';
import { OBSERVED_AT, v14Authentication, v14Compare, v2Authentication } from './fixtures.js';
import { accepted, ctx, rejected } from './helpers.js';

/** A list nested `levels` deep, as text and as the value it parses to. */
const nestedText = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('oversizedKey', () => {
  it.each([
    ['a service id', 'A-1001', null],
    ['exactly the bound in ASCII', 'x'.repeat(MAX_KEY_BYTES), null],
    [
      'one byte over',
      'x'.repeat(MAX_KEY_BYTES + 1),
      `service_id: 1025 bytes long, longer than the ${MAX_KEY_BYTES} bytes every target can index`,
    ],
    [
      'under the bound in characters, over it in UTF-8 bytes',
      'é'.repeat(513),
      `service_id: 1026 bytes long, longer than the ${MAX_KEY_BYTES} bytes every target can index`,
    ],
  ])('%s', (_name, id, reason) => {
    expect(oversizedKey('service_id', id)).toBe(reason);
  });
});

describe('nesting depth', () => {
  it.each([
    ['a scalar', '1', 1, false],
    ['an empty object is one level', '{}', 1, false],
    ['two levels over a bound of one', '{"a":[]}', 1, true],
    ['brackets inside strings do not count', '{"a":"[[[[[[","b":"\\"[["}', 1, false],
    ['at the bound', nestedText(MAX_DEPTH), MAX_DEPTH, false],
    ['one past the bound', nestedText(MAX_DEPTH + 1), MAX_DEPTH, true],
    ['100,000 levels, walked without recursion', nestedText(100_000), MAX_DEPTH, true],
  ])('%s', (_name, text, limit, deeper) => {
    expect(textNestsDeeperThan(text, limit)).toBe(deeper);
    expect(nestsDeeperThan(JSON.parse(text), limit)).toBe(deeper);
  });
});

describe('items past the bounds are kept aside with a reason, on every interface', () => {
  const hugeId = 'A-'.padEnd(300_000, 'x');

  it('a 300,000-character service_id: the reason gives its length, the id is left out of the indexed column', () => {
    const item = { ...v14Authentication(), service_id: hugeId };
    const r = rejected('authentications', '1.4', item);
    expect(r.reason).toBe(
      `service_id: 300000 bytes long, longer than the ${MAX_KEY_BYTES} bytes every target can index`,
    );
    expect(r.service_id).toBeNull();
    expect(JSON.parse(r.raw).service_id).toBe(hugeId);
  });

  it.each([
    [
      'customer_item_id (v1.4 text field)',
      () => ({ ...v14Authentication(), text_fields: { customer_item_id: 'c'.repeat(2000) } }),
      'customer_item_id: 2000 bytes',
    ],
    [
      'customer_item_id (v2)',
      () => ({
        ...v2Authentication(),
        properties: { ...(v2Authentication().properties as object), customer_item_id: 'c'.repeat(2000) },
      }),
      'customer_item_id: 2000 bytes',
    ],
    [
      'a text field key',
      () => ({ ...v14Authentication(), text_fields: { ['k'.repeat(1500)]: 'v' } }),
      'text_fields (a key): 1500 bytes',
    ],
  ])('a key over the bound: %s', (_name, item, reason) => {
    const r = rejected('authentications', _name.includes('v2') ? '2' : '1.4', item());
    expect(r.reason.startsWith(reason)).toBe(true);
    expect(r.service_id).not.toBeNull();
  });

  it('a parent_service_id over the bound', () => {
    const item = v14Compare();
    (item.fingerprint_parent as Record<string, unknown>).service_id = 'p'.repeat(1025);
    expect(rejected('fingerprints', '1.4', item).reason).toMatch(/^parent_service_id: 1025 bytes long/);
  });

  it('an unknown key nested 100,000 deep: rejected before any reader recurses; raw kept as one JSON string', () => {
    const text = `{"service_id":"A-9","nested":${nestedText(100_000)}}`;
    const item: unknown = JSON.parse(text);
    const r = normalizeItem('authentications', '1.4', item, ctx(), text);
    expect(r).toMatchObject({ reason: TOO_DEEP, service_id: 'A-9', seen_at: OBSERVED_AT });
    expect('raw' in r && JSON.parse(r.raw)).toBe(text);
    // Without the text, the item cannot be serialized again (JSON.stringify recurses): still rejected, not thrown.
    expect(normalizeItem('authentications', '1.4', item, ctx())).toMatchObject({ reason: TOO_DEEP });
  });

  it('an item nested up to the bound is stored, its raw as received', () => {
    let deep: unknown = [];
    for (let level = 3; level < MAX_DEPTH; level++) deep = [deep];
    const item = { ...v14Authentication(), labels: deep };
    expect(nestsDeeperThan(item)).toBe(false);
    expect(accepted('authentications', '1.4', item).row.raw).toBe(JSON.stringify(item));
  });

  it('a rejected row past the bounds still stores: same id for the same item', () => {
    const raw = `{"a":${nestedText(500)}}`;
    const one = rejectedRow('authentications', 'x', raw, hugeId, 'default', OBSERVED_AT);
    expect(one).toMatchObject({ service_id: null, raw: JSON.stringify(raw) });
    expect(rejectedRow('authentications', 'x', raw, hugeId, 'default', '2027-01-01T00:00:00.000000Z').id).toBe(one.id);
  });
});
