import { describe, expect, it } from 'vitest';
import { normalizeItems } from '../../src/normalize/normalize-item.js';
import { PARENT_COLUMNS } from '../../src/normalize/session-fields.js';
import { table } from '../../src/schema/schema.js';
import { OBSERVED_AT, PARENT_WARNING, v14Authentication, v14Compare, v14Register } from './fixtures.js';
import { accepted, ctx } from './helpers.js';

const columnsOf = (name: string): string[] =>
  table(name)
    .columns.map((c) => c.name)
    .sort();

describe('v1.4 authentication', () => {
  it('fills every column of the authentications table', () => {
    const item = v14Authentication();
    const s = accepted('authentications', '1.4', item);
    expect(s.resource).toBe('authentications');
    expect(Object.keys(s.row).sort()).toEqual(columnsOf('authentications'));
    expect(s.row).toEqual({
      service_id: 'A-1001',
      account: 'default',
      api_version: '1.4',
      form_factor: 'microscopic',
      product_category: 'luxury',
      product_group: 'bags',
      brand_id: 'louis_vuitton',
      brand_display: 'Louis Vuitton',
      material_id: 'monogram_canvas',
      material_display: 'Monogram Canvas',
      result_id: 'authentic',
      result_display: 'Authentic',
      result_final: true,
      initial_result_id: null,
      flag: null,
      retake_required: null,
      customer_item_id: 'SKU-77',
      identifier: 'SD1234',
      style_code: 'M40995',
      us_size: '9.5',
      organization_name: 'Acme Resale',
      username: 'kim',
      organization_id: null,
      user_id: null,
      certificate_id: null,
      certificate_preview: 'https://cert.example.com/p/A-1001.png',
      certificate_site: 'https://cert.example.com/A-1001',
      created_at: '2026-11-22T03:06:17.123456Z',
      created_epoch: 1795316777.123456,
      last_updated_at: null,
      update_counter: null,
      first_seen_at: OBSERVED_AT,
      last_synced_at: OBSERVED_AT,
      missing_since: null,
      source: 'search',
      raw: JSON.stringify(item),
    });
    expect(s.row.created_at).toBe((item['timestamp'] as { display: string }).display);
  });

  it('makes one text field row per key, photo rows in list order, and no warnings', () => {
    const s = accepted('authentications', '1.4', v14Authentication());
    expect(s.textFields).toEqual([
      { service_id: 'A-1001', key: 'customer_item_id', value: 'SKU-77' },
      { service_id: 'A-1001', key: 'identifier', value: 'SD1234' },
      { service_id: 'A-1001', key: 'style_code', value: 'M40995' },
      { service_id: 'A-1001', key: 'us_size', value: '9.5' },
    ]);
    expect(s.images).toEqual([
      { service_id: 'A-1001', name: 'photo_0', url: 'https://img.example.com/1.jpg', metadata: null },
      { service_id: 'A-1001', name: 'photo_1', url: 'https://img.example.com/2.jpg', metadata: '{"angle":"side"}' },
    ]);
    expect(s.warnings).toEqual([]);
    expect(s.preserve).toEqual([]);
  });

  it('keeps non-string text field values as JSON text, in the child rows and the columns', () => {
    const item = v14Authentication();
    item['text_fields'] = { customer_item_id: 12345, notes: { a: [1, 2] }, empty: null };
    const s = accepted('authentications', '1.4', item);
    expect(s.row.customer_item_id).toBe('12345');
    expect(s.textFields.map((t) => [t.key, t.value])).toEqual([
      ['customer_item_id', '12345'],
      ['notes', '{"a":[1,2]}'],
      ['empty', null],
    ]);
  });

  it('takes update_counter from the context first, then from the item (webhook deliveries)', () => {
    const item = { ...v14Authentication(), update_counter: 7 };
    expect(accepted('authentications', '1.4', item, ctx({ source: 'webhook' })).row.update_counter).toBe(7);
    expect(
      accepted('authentications', '1.4', item, ctx({ source: 'webhook', updateCounter: 9 })).row.update_counter,
    ).toBe(9);
    expect(accepted('authentications', '1.4', item, ctx({ source: 'webhook' })).row.source).toBe('webhook');
  });

  it('reads a minimal item (only the required fields) as nulls', () => {
    const s = accepted('authentications', '1.4', { service_id: 'A-min', timestamp: { epoch: 1795316777 } });
    expect(s.row.created_at).toBe('2026-11-22T03:06:17.000000Z');
    const nullColumns = Object.entries(s.row)
      .filter(([, v]) => v === null)
      .map(([k]) => k);
    expect(nullColumns).toContain('brand_id');
    expect(nullColumns).toContain('result_final');
    expect(nullColumns).toContain('customer_item_id');
    expect([s.textFields, s.images, s.warnings]).toEqual([[], [], []]);
  });
});

describe('v1.4 fingerprints', () => {
  const cases = [
    {
      name: 'register: no parent, parent_accessible null',
      item: v14Register,
      context: ctx(),
      expected: {
        mode: 'register',
        parent_service_id: null,
        parent_customer_item_id: null,
        parent_relationship_type: null,
        parent_accessible: null,
      },
      warnings: [],
      // The key is absent, so the observation cannot know; the stored nulls stay nulls.
      preserve: [...PARENT_COLUMNS],
    },
    {
      name: 'compare: the parent is shown',
      item: v14Compare,
      context: ctx(),
      expected: {
        mode: 'compare',
        parent_service_id: 'F-2001',
        parent_customer_item_id: 'BAG-9',
        parent_relationship_type: null,
        parent_accessible: true,
      },
      warnings: [],
      preserve: [],
    },
    {
      name: 'compare, partial case: empty parent and the response warning',
      item: () => ({ ...v14Compare(), fingerprint_parent: {} }),
      context: ctx({ source: 'get', responseWarnings: [PARENT_WARNING] }),
      expected: {
        mode: 'compare',
        parent_service_id: null,
        parent_customer_item_id: null,
        parent_relationship_type: null,
        parent_accessible: false,
      },
      warnings: [
        {
          service_id: 'F-2002',
          code: 'fingerprint_parent_not_authorized',
          message: PARENT_WARNING.message,
          seen_at: OBSERVED_AT,
        },
      ],
      preserve: [],
    },
    {
      name: 'compare from a webhook: no fingerprint_parent key, parent columns preserved',
      item: () => {
        const { fingerprint_parent: _, ...rest } = v14Compare();
        return { ...rest, update_counter: 3 };
      },
      context: ctx({ source: 'webhook' }),
      expected: {
        mode: 'compare',
        parent_service_id: null,
        parent_customer_item_id: null,
        parent_relationship_type: null,
        parent_accessible: null,
        update_counter: 3,
      },
      warnings: [],
      preserve: ['parent_service_id', 'parent_customer_item_id', 'parent_relationship_type', 'parent_accessible'],
    },
  ];

  it.each(cases)('$name', ({ item, context, expected, warnings, preserve }) => {
    const s = accepted('fingerprints', '1.4', item(), context);
    expect(s.resource).toBe('fingerprints');
    expect(Object.keys(s.row).sort()).toEqual(columnsOf('fingerprints'));
    expect(s.row).toMatchObject(expected);
    expect(s.warnings).toEqual(warnings);
    expect(s.preserve).toEqual(preserve);
  });

  it('fills every column of a compare session', () => {
    const item = v14Compare();
    expect(accepted('fingerprints', '1.4', item).row).toEqual({
      service_id: 'F-2002',
      account: 'default',
      api_version: '1.4',
      mode: 'compare',
      form_factor: 'microscopic',
      result_id: 'match',
      result_display: 'Match',
      result_final: false,
      flag: 'review',
      customer_item_id: 'BAG-9-CHECK',
      parent_service_id: 'F-2001',
      parent_customer_item_id: 'BAG-9',
      parent_relationship_type: null,
      parent_accessible: true,
      organization_name: 'Acme Resale',
      username: 'lee',
      organization_id: null,
      user_id: null,
      created_at: '2026-11-21T08:30:00.500000Z',
      created_epoch: 1795249800.5,
      last_updated_at: null,
      update_counter: null,
      first_seen_at: OBSERVED_AT,
      last_synced_at: OBSERVED_AT,
      missing_since: null,
      source: 'search',
      raw: JSON.stringify(item),
    });
  });

  it('attributes the page-level parent warning to every item with an empty parent, and only to them', () => {
    const hidden1 = { ...v14Compare(), service_id: 'F-h1', fingerprint_parent: {} };
    const hidden2 = { ...v14Compare(), service_id: 'F-h2', fingerprint_parent: {} };
    const batch = normalizeItems(
      'fingerprints',
      '1.4',
      [hidden1, v14Compare(), v14Register(), hidden2],
      ctx({ responseWarnings: [PARENT_WARNING] }),
    );
    expect(batch.rejected).toEqual([]);
    expect(batch.sessions.map((s) => [s.row.service_id, s.warnings.map((w) => w.code)])).toEqual([
      ['F-h1', ['fingerprint_parent_not_authorized']],
      ['F-2002', []],
      ['F-2001', []],
      ['F-h2', ['fingerprint_parent_not_authorized']],
    ]);
  });

  it('an empty parent without the warning is still not accessible, with no warning row made up', () => {
    const s = accepted('fingerprints', '1.4', { ...v14Compare(), fingerprint_parent: {} });
    expect(s.row.parent_accessible).toBe(false);
    expect(s.warnings).toEqual([]);
  });
});
