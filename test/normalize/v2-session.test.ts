import { describe, expect, it } from 'vitest';
import { table } from '../../src/schema/schema.js';
import { OBSERVED_AT, PARENT_WARNING, v2Authentication, v2Compare } from './fixtures.js';
import { accepted, ctx } from './helpers.js';

const columnsOf = (name: string): string[] =>
  table(name)
    .columns.map((c) => c.name)
    .sort();

describe('v2 authentication (brand as a string)', () => {
  it('fills every column of the authentications table', () => {
    const item = v2Authentication();
    const s = accepted('authentications', '2', item, ctx({ source: 'lookup' }));
    expect(Object.keys(s.row).sort()).toEqual(columnsOf('authentications'));
    expect(s.row).toEqual({
      service_id: 'V2-A-1',
      account: 'default',
      api_version: '2',
      form_factor: 'free_camera',
      product_category: 'luxury',
      product_group: null,
      brand_id: 'chanel',
      brand_display: null,
      material_id: 'caviar_leather',
      material_display: null,
      result_id: 'authentic',
      result_display: 'Authentic',
      result_final: true,
      initial_result_id: 'unidentified',
      flag: null,
      retake_required: false,
      customer_item_id: 'ORDER-5',
      identifier: null,
      style_code: null,
      us_size: '8',
      organization_name: null,
      username: null,
      organization_id: 'org-1',
      user_id: 'user-9',
      certificate_id: 'cert-42',
      certificate_preview: null,
      certificate_site: null,
      created_at: '2026-11-22T03:06:17.654321Z',
      created_epoch: 1795316777.654321,
      // +02:00 in the item, UTC in the row.
      last_updated_at: '2026-11-22T03:00:00.000007Z',
      update_counter: null,
      first_seen_at: OBSERVED_AT,
      last_synced_at: OBSERVED_AT,
      missing_since: null,
      source: 'lookup',
      raw: JSON.stringify(item),
    });
  });

  it('makes image rows from the named map, metadata as JSON', () => {
    const s = accepted('authentications', '2', v2Authentication());
    expect(s.images).toEqual([
      { service_id: 'V2-A-1', name: 'front', url: 'https://img.example.com/f.jpg', metadata: '{"width":1200}' },
      { service_id: 'V2-A-1', name: 'back', url: null, metadata: '{"width":800}' },
    ]);
    expect(s.textFields).toEqual([
      { service_id: 'V2-A-1', key: 'serial', value: 'X9' },
      { service_id: 'V2-A-1', key: 'us_size', value: '8' },
    ]);
    expect(s.preserve).toEqual([]);
  });

  it('falls back to text_fields.customer_item_id when properties has none', () => {
    const item = v2Authentication();
    item['properties'] = { brand: 'chanel' };
    item['text_fields'] = { customer_item_id: 'TF-1' };
    expect(accepted('authentications', '2', item).row.customer_item_id).toBe('TF-1');
  });
});

describe('v2 fingerprint (brand as an object, parent with relationship_type)', () => {
  it('fills every column of the fingerprints table', () => {
    const item = v2Compare();
    const s = accepted('fingerprints', '2', item);
    expect(Object.keys(s.row).sort()).toEqual(columnsOf('fingerprints'));
    expect(s.row).toEqual({
      service_id: 'V2-F-2',
      account: 'default',
      api_version: '2',
      mode: 'compare',
      form_factor: 'microscopic',
      result_id: 'verified',
      result_display: null,
      result_final: true,
      flag: null,
      customer_item_id: 'BAG-10',
      parent_service_id: 'V2-F-1',
      parent_customer_item_id: null,
      parent_relationship_type: 'compared_to',
      parent_accessible: true,
      organization_name: null,
      username: null,
      organization_id: null,
      user_id: null,
      created_at: '2026-11-22T03:06:17.000000Z',
      created_epoch: 1795316777,
      last_updated_at: null,
      update_counter: null,
      first_seen_at: OBSERVED_AT,
      last_synced_at: OBSERVED_AT,
      missing_since: null,
      source: 'search',
      raw: JSON.stringify(item),
    });
    expect([s.textFields, s.images, s.warnings, s.preserve]).toEqual([[], [], [], []]);
  });

  it('reads the brand object of a v2 authentication too', () => {
    const item = v2Authentication();
    item['properties'] = {
      customer_item_id: 'ORDER-5',
      brand: { id: 'hermes', name: 'Hermès' },
      material: { id: 'box', name: 'Box calf' },
    };
    const s = accepted('authentications', '2', item);
    expect([s.row.brand_id, s.row.brand_display, s.row.material_id, s.row.material_display]).toEqual([
      'hermes',
      'Hermès',
      'box',
      'Box calf',
    ]);
  });

  const parentCases = [
    {
      name: 'null parent (register)',
      parent: null,
      accessible: null,
      warnings: [] as string[],
      preserve: [] as string[],
    },
    {
      name: 'empty parent with the warning',
      parent: {},
      accessible: false,
      warnings: ['fingerprint_parent_not_authorized'],
      preserve: [],
    },
    {
      name: 'no parent key (webhook)',
      parent: undefined,
      accessible: null,
      warnings: [],
      preserve: ['parent_service_id', 'parent_customer_item_id', 'parent_relationship_type', 'parent_accessible'],
    },
  ];

  it.each(parentCases)('$name', ({ parent, accessible, warnings, preserve }) => {
    const item = { ...v2Compare(), fingerprint_parent: parent };
    if (parent === undefined) delete (item as Record<string, unknown>)['fingerprint_parent'];
    const s = accepted('fingerprints', '2', item, ctx({ responseWarnings: [PARENT_WARNING] }));
    expect(s.row.parent_accessible).toBe(accessible);
    expect(s.row.parent_service_id).toBeNull();
    expect(s.warnings.map((w) => w.code)).toEqual(warnings);
    expect(s.preserve).toEqual(preserve);
  });
});
