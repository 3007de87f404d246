import { describe, expect, it } from 'vitest';
import { normalizeAuthConfig } from '../../src/normalize/auth-config-rows.js';
import { normalizeCatalog } from '../../src/normalize/catalog-rows.js';
import { normalizeDomain } from '../../src/normalize/domain-row.js';
import { normalizeWebhook } from '../../src/normalize/webhook-row.js';
import { table } from '../../src/schema/schema.js';

const NOW = '2026-11-22T04:00:00.000000Z';
const columnsOf = (name: string): string[] =>
  table(name)
    .columns.map((c) => c.name)
    .sort();

const webhook = {
  webhook_uuid: '6f1c2a9e-8c1b-4a57-9d0e-2b3c4d5e6f70',
  channel: 'default',
  create_timestamp: { display: '2026-11-01T12:00:00.250000Z', epoch: 1793534400.25 },
  endpoint: { type: 'url', value: 'https://hooks.example.com/ivs' },
  filters: [{ key: 'activity.name', value: 'authentication' }],
  webhook_owner: { organization: { name: 'Acme Resale' }, user: { username: 'kim' } },
};

const domain = {
  domain_uuid: '0b7e5c1a-1111-4222-8333-944455566677',
  domain_name: 'hooks.example.com',
  domain_owner: { organization: { name: 'Acme Resale' }, user: { username: 'kim' } },
  create_timestamp: { display: '2026-10-01T00:00:00.000000Z', epoch: 1790812800 },
};

describe('webhooks mirror', () => {
  it('fills every column of the table', () => {
    const row = normalizeWebhook(webhook, 'default', NOW);
    expect(Object.keys(row ?? {}).sort()).toEqual(columnsOf('webhooks'));
    expect(row).toEqual({
      webhook_uuid: webhook.webhook_uuid,
      account: 'default',
      channel: 'default',
      endpoint_url: 'https://hooks.example.com/ivs',
      filters: '[{"key":"activity.name","value":"authentication"}]',
      created_at: '2026-11-01T12:00:00.250000Z',
      created_epoch: 1793534400.25,
      organization_name: 'Acme Resale',
      username: 'kim',
      active: true,
      last_synced_at: NOW,
      raw: JSON.stringify(webhook),
    });
  });

  it.each([
    [
      'v2 with null owner and timestamp',
      { ...webhook, webhook_owner: null, create_timestamp: null },
      { organization_name: null, created_at: null, created_epoch: null },
    ],
    [
      'display only',
      { ...webhook, create_timestamp: { display: '2026-11-01T13:00:00.000001+01:00' } },
      { created_at: '2026-11-01T12:00:00.000001Z', created_epoch: 1793534400.000001 },
    ],
    ['says it is inactive', { ...webhook, active: false }, { active: false }],
    [
      'odd types become nulls',
      { ...webhook, channel: 5, endpoint: 'x', filters: null },
      { channel: null, endpoint_url: null, filters: null },
    ],
  ])('%s', (_, obj, expected) => {
    expect(normalizeWebhook(obj, 'default', NOW)).toMatchObject(expected);
  });

  it.each([[null], ['x'], [[webhook]], [{ ...webhook, webhook_uuid: '' }], [{ channel: 'default' }]])(
    'no row without a uuid: %j',
    (obj) => {
      expect(normalizeWebhook(obj, 'default', NOW)).toBeNull();
    },
  );
});

describe('domains mirror', () => {
  it('fills every column of the table', () => {
    const row = normalizeDomain(domain, 'acct-2', NOW);
    expect(Object.keys(row ?? {}).sort()).toEqual(columnsOf('domains'));
    expect(row).toEqual({
      domain_uuid: domain.domain_uuid,
      account: 'acct-2',
      domain_name: 'hooks.example.com',
      organization_name: 'Acme Resale',
      username: 'kim',
      created_at: '2026-10-01T00:00:00.000000Z',
      created_epoch: 1790812800,
      last_synced_at: NOW,
      raw: JSON.stringify(domain),
    });
  });

  it('needs a uuid', () => {
    expect(normalizeDomain({ domain_name: 'x' }, 'default', NOW)).toBeNull();
  });
});

describe('catalog', () => {
  const config = {
    config: {
      brands: [
        {
          brand_id: 'chanel',
          display: { name: 'Chanel' },
          materials: [
            { material_id: 'caviar_leather', display: { name: 'Caviar leather' } },
            { display: { name: 'no id' } },
          ],
          details: [{ field_alias: 'serial', display: { name: 'Serial number' } }],
        },
        { brand_id: 'hermes', display: { name: 'Hermès' }, extra: true },
        { display: { name: 'no brand id' } },
        'junk',
      ],
    },
    iat: 1795316777,
    exp: 1795320377,
  };

  it('turns the authentication config into brand, material and detail field rows', () => {
    const rows = normalizeAuthConfig(config, 'default', NOW);
    for (const r of rows.catalog_brands) expect(Object.keys(r).sort()).toEqual(columnsOf('catalog_brands'));
    for (const r of rows.catalog_materials) expect(Object.keys(r).sort()).toEqual(columnsOf('catalog_materials'));
    for (const r of rows.catalog_detail_fields)
      expect(Object.keys(r).sort()).toEqual(columnsOf('catalog_detail_fields'));
    expect(rows.catalog_brands.map((b) => [b.brand_id, b.name])).toEqual([
      ['chanel', 'Chanel'],
      ['hermes', 'Hermès'],
    ]);
    expect(JSON.parse(rows.catalog_brands[1]?.raw ?? '')).toEqual(config.config.brands[1]);
    expect(rows.catalog_brands[0]?.last_synced_at).toBe(NOW);
    expect(rows.catalog_materials).toEqual([
      { account: 'default', brand_id: 'chanel', material_id: 'caviar_leather', name: 'Caviar leather' },
    ]);
    expect(rows.catalog_detail_fields).toEqual([
      { account: 'default', brand_id: 'chanel', field_alias: 'serial', name: 'Serial number' },
    ]);
    expect(rows.problems).toEqual([
      'config.brands[0].materials[1].material_id: expected a non-empty string, got nothing',
      'config.brands[2].brand_id: expected a non-empty string, got nothing',
      'config.brands[3]: expected an object, got string',
    ]);
  });

  it('keeps one row per key when an id repeats', () => {
    const rows = normalizeAuthConfig(
      {
        config: {
          brands: [
            { brand_id: 'a', display: { name: 'old' } },
            { brand_id: 'a', display: { name: 'new' } },
          ],
        },
      },
      'default',
      NOW,
    );
    expect(rows.catalog_brands.map((b) => b.name)).toEqual(['new']);
  });

  it('reports a response without brands', () => {
    expect(normalizeAuthConfig({ iat: 1 }, 'default', NOW)).toEqual({
      catalog_brands: [],
      catalog_materials: [],
      catalog_detail_fields: [],
      problems: ['config.brands: expected an array, got nothing'],
    });
  });

  it('turns the supported catalog into category rows', () => {
    const brands = [
      {
        brand_id: 'chanel',
        display: { name: 'Chanel' },
        materials: [{ material_id: 'caviar_leather', display: { name: 'Caviar' } }],
      },
    ];
    const rows = normalizeCatalog(
      {
        categories: [
          {
            product_category: 'luxury',
            customer_product_group: 'bags',
            display: { product_category: 'Luxury', customer_product_group: 'Bags' },
            brands,
          },
          { product_category: 'luxury', customer_product_group: null, display: null, brands: [] },
        ],
      },
      'default',
    );
    expect(rows.catalog_categories).toEqual([
      {
        account: 'default',
        product_category: 'luxury',
        customer_product_group: 'bags',
        display_product_category: 'Luxury',
        display_customer_product_group: 'Bags',
        brands: JSON.stringify(brands),
      },
    ]);
    expect(Object.keys(rows.catalog_categories[0] ?? {}).sort()).toEqual(columnsOf('catalog_categories'));
    expect(rows.problems).toEqual(['categories[1].customer_product_group: expected a non-empty string, got null']);
  });
});
