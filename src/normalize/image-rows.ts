import { isJsonObject, readString } from './field-readers.js';
import type { JsonObject } from './field-readers.js';
import { ItemShapeError } from './item-shape-error.js';
import type { ImageRow } from './rows.js';

/**
 * v1.4 `images.photos`: the spec does not show an entry's shape, so an entry
 * is a URL string or an object with `url`; the rest of such an object is kept
 * as the row's metadata. Photos are named photo_0, photo_1, ... in list order.
 */
export function v14ImageRows(serviceId: string, photos: readonly unknown[] | null): ImageRow[] {
  const rows: ImageRow[] = [];
  if (photos === null) return rows;
  for (let i = 0; i < photos.length; i++) {
    const entry = photos[i];
    const name = `photo_${i}`;
    if (typeof entry === 'string') {
      rows.push({ service_id: serviceId, name, url: entry, metadata: null });
    } else if (isJsonObject(entry)) {
      const url = readString(entry, 'url', `images.photos[${i}].url`);
      rows.push({ service_id: serviceId, name, url, metadata: metadataBeyondUrl(entry) });
    } else if (entry !== null && entry !== undefined) {
      throw ItemShapeError.wrongType(`images.photos[${i}]`, 'a string or an object', entry);
    }
  }
  return rows;
}

/**
 * v2 `images`: a map of named entries, each may carry a `metadata` map. The
 * entry shape beyond that is not shown, so a bare string is taken as the URL.
 */
export function v2ImageRows(serviceId: string, images: JsonObject | null): ImageRow[] {
  const rows: ImageRow[] = [];
  if (images === null) return rows;
  for (const name in images) {
    const entry = images[name];
    if (typeof entry === 'string') {
      rows.push({ service_id: serviceId, name, url: entry, metadata: null });
    } else if (isJsonObject(entry)) {
      const metadata = entry['metadata'];
      rows.push({
        service_id: serviceId,
        name,
        url: readString(entry, 'url', `images.${name}.url`),
        metadata: metadata === undefined || metadata === null ? null : JSON.stringify(metadata),
      });
    } else if (entry === null) {
      rows.push({ service_id: serviceId, name, url: null, metadata: null });
    } else {
      throw ItemShapeError.wrongType(`images.${name}`, 'a string or an object', entry);
    }
  }
  return rows;
}

function metadataBeyondUrl(entry: JsonObject): string | null {
  let rest: Record<string, unknown> | null = null;
  for (const key in entry) {
    if (key === 'url') continue;
    rest ??= {};
    rest[key] = entry[key];
  }
  return rest === null ? null : JSON.stringify(rest);
}
