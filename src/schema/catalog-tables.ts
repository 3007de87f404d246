/**
 * The catalog: the brands, materials, detail fields and product categories the account may submit (v2), replaced
 * on every catalog sync. Part of TABLES (schema.ts).
 */

import { col } from './column.js';
import type { TableDef } from './table-def.js';

export const CATALOG_TABLES: readonly TableDef[] = [
  {
    name: 'catalog_brands',
    description: "Brands the account's token may submit (v2 authentication config), replaced on every catalog sync.",
    primaryKey: ['account', 'brand_id'],
    columns: [
      col('account', 'text', 'Configured account name.', { nullable: false }),
      col('brand_id', 'text', 'Machine identifier of the brand (properties.brand of sessions).', {
        v2: 'config.brands[].brand_id',
        nullable: false,
      }),
      col('name', 'text', 'Display name of the brand (language of Accept-Language).', {
        v2: 'config.brands[].display.name',
      }),
      col('raw', 'json', 'The brand entry as received, materials and details included.', {
        v2: 'config.brands[]',
        nullable: false,
      }),
      col('last_synced_at', 'timestamp', 'When the catalog sync last saw the brand.', { nullable: false }),
    ],
  },
  {
    name: 'catalog_materials',
    description: 'Materials of each brand (v2 authentication config).',
    primaryKey: ['account', 'brand_id', 'material_id'],
    columns: [
      col('account', 'text', 'Configured account name.', { nullable: false }),
      col('brand_id', 'text', 'The brand.', { v2: 'config.brands[].brand_id', nullable: false }),
      col('material_id', 'text', 'Machine identifier of the material (properties.material of sessions).', {
        v2: 'config.brands[].materials[].material_id',
        nullable: false,
      }),
      col('name', 'text', 'Display name of the material.', { v2: 'config.brands[].materials[].display.name' }),
    ],
  },
  {
    name: 'catalog_detail_fields',
    description: 'Detail fields (text fields) the app asks for, per brand (v2 authentication config).',
    primaryKey: ['account', 'brand_id', 'field_alias'],
    columns: [
      col('account', 'text', 'Configured account name.', { nullable: false }),
      col('brand_id', 'text', 'The brand.', { v2: 'config.brands[].brand_id', nullable: false }),
      col('field_alias', 'text', 'Key of the field (a text_fields key of sessions).', {
        v2: 'config.brands[].details[].field_alias',
        nullable: false,
      }),
      col('name', 'text', 'Display name of the field.', { v2: 'config.brands[].details[].display.name' }),
    ],
  },
  {
    name: 'catalog_categories',
    description: 'Supported product categories and groups with their brands (v2 supported catalog).',
    primaryKey: ['account', 'product_category', 'customer_product_group'],
    columns: [
      col('account', 'text', 'Configured account name.', { nullable: false }),
      col('product_category', 'text', 'Category (activity.product_category of sessions).', {
        v2: 'categories[].product_category',
        nullable: false,
      }),
      col('customer_product_group', 'text', 'Product group.', {
        v2: 'categories[].customer_product_group',
        nullable: false,
      }),
      col('display_product_category', 'text', 'Display name of the category.', {
        v2: 'categories[].display.product_category',
      }),
      col('display_customer_product_group', 'text', 'Display name of the product group.', {
        v2: 'categories[].display.customer_product_group',
      }),
      col('brands', 'json', 'The brands of the category with their materials, as received.', {
        v2: 'categories[].brands',
      }),
    ],
  },
];
