import { idOf } from './auth-config-rows.js';
import { isJsonObject, objectOrNull, stringOrNull } from './field-readers.js';
import { jsonTypeOf } from './item-shape-error.js';
import type { CatalogCategoryRow, CatalogRows } from './rows.js';

/**
 * The catalog_categories rows of the v2 supported catalog
 * (`GET /v2/supported-catalog`: `{categories: [...]}`). product_category and
 * customer_product_group form the key: an entry without either is reported in
 * `problems` rather than stored under an invented value. A category's brands
 * (with their materials) are kept as JSON text.
 */
export function normalizeCatalog(response: unknown, account: string): CatalogRows {
  const rows = new Map<string, CatalogCategoryRow>();
  const problems: string[] = [];
  const list = isJsonObject(response) ? response['categories'] : undefined;
  if (!Array.isArray(list)) {
    problems.push(`categories: expected an array, got ${jsonTypeOf(list)}`);
    return { catalog_categories: [], problems };
  }
  list.forEach((entry: unknown, i) => {
    const path = `categories[${i}]`;
    const category = idOf(entry, 'product_category', path, problems);
    if (category === null || !isJsonObject(entry)) return;
    const group = idOf(entry, 'customer_product_group', path, problems);
    if (group === null) return;
    const display = objectOrNull(entry, 'display');
    const brands = entry['brands'];
    rows.set(`${category}\u0000${group}`, {
      account,
      product_category: category,
      customer_product_group: group,
      display_product_category: stringOrNull(display, 'product_category'),
      display_customer_product_group: stringOrNull(display, 'customer_product_group'),
      brands: brands === undefined || brands === null ? null : JSON.stringify(brands),
    });
  });
  return { catalog_categories: [...rows.values()], problems };
}
