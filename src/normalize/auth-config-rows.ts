import { isJsonObject, objectOrNull, stringOrNull } from './field-readers.js';
import type { JsonObject } from './field-readers.js';
import { jsonTypeOf } from './item-shape-error.js';
import { storableText } from './storable-text.js';
import type { AuthConfigRows, CatalogBrandRow, CatalogDetailFieldRow, CatalogMaterialRow } from './rows.js';

/**
 * The catalog_brands, catalog_materials and catalog_detail_fields rows of the
 * v2 authentication config (`GET /v2/authentication-config`:
 * `{config: {brands: [...]}, iat, exp}`). An entry without its id cannot be a
 * row and is reported in `problems`; repeated ids keep the last entry, so the
 * rows never collide on their primary key.
 */
export function normalizeAuthConfig(response: unknown, account: string, now: string): AuthConfigRows {
  const brands = new Map<string, CatalogBrandRow>();
  const materials = new Map<string, CatalogMaterialRow>();
  const details = new Map<string, CatalogDetailFieldRow>();
  const problems: string[] = [];
  const config = isJsonObject(response) ? objectOrNull(response, 'config') : null;
  const list = config === null ? undefined : config['brands'];
  if (!Array.isArray(list)) {
    problems.push(`config.brands: expected an array, got ${jsonTypeOf(list)}`);
    return { catalog_brands: [], catalog_materials: [], catalog_detail_fields: [], problems };
  }
  list.forEach((entry: unknown, i) => {
    const path = `config.brands[${i}]`;
    const brandId = idOf(entry, 'brand_id', path, problems);
    if (brandId === null || !isJsonObject(entry)) return;
    brands.set(brandId, {
      account,
      brand_id: brandId,
      name: displayName(entry),
      raw: JSON.stringify(entry),
      last_synced_at: now,
    });
    eachEntry(entry, 'materials', path, problems, (material, materialPath) => {
      const materialId = idOf(material, 'material_id', materialPath, problems);
      if (materialId === null) return;
      materials.set(`${brandId}\u0000${materialId}`, {
        account,
        brand_id: brandId,
        material_id: materialId,
        name: displayName(material),
      });
    });
    eachEntry(entry, 'details', path, problems, (detail, detailPath) => {
      const alias = idOf(detail, 'field_alias', detailPath, problems);
      if (alias === null) return;
      details.set(`${brandId}\u0000${alias}`, {
        account,
        brand_id: brandId,
        field_alias: alias,
        name: displayName(detail),
      });
    });
  });
  return {
    catalog_brands: [...brands.values()],
    catalog_materials: [...materials.values()],
    catalog_detail_fields: [...details.values()],
    problems,
  };
}

/** `display.name` of a catalog entry. */
export function displayName(entry: unknown): string | null {
  return isJsonObject(entry) ? stringOrNull(objectOrNull(entry, 'display'), 'name') : null;
}

/** The non-empty string id of a catalog entry, or null with a problem recorded. */
export function idOf(entry: unknown, key: string, path: string, problems: string[]): string | null {
  if (!isJsonObject(entry)) {
    problems.push(`${path}: expected an object, got ${jsonTypeOf(entry)}`);
    return null;
  }
  const id = entry[key];
  if (typeof id === 'string' && id !== '') return storableText(id);
  problems.push(`${path}.${key}: expected a non-empty string, got ${id === '' ? 'an empty string' : jsonTypeOf(id)}`);
  return null;
}

function eachEntry(
  parent: JsonObject,
  key: string,
  path: string,
  problems: string[],
  visit: (entry: unknown, entryPath: string) => void,
): void {
  const list = parent[key];
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) {
    problems.push(`${path}.${key}: expected an array, got ${jsonTypeOf(list)}`);
    return;
  }
  list.forEach((entry: unknown, i) => visit(entry, `${path}.${key}[${i}]`));
}
