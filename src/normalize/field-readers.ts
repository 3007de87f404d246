import { ItemShapeError } from './item-shape-error.js';
import { storableText } from './storable-text.js';

/** A JSON object as parsed; keys the service adds later are simply present. */
export type JsonObject = { readonly [key: string]: unknown };

/*
 * The readers of the hot path. Each takes the parent object (null when the
 * parent itself is absent), the key and the full JSON path for the reason.
 * Absent and null read as null: a missing optional field is never an error.
 * A present value of the wrong type throws ItemShapeError.
 */

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readObject(parent: JsonObject | null, key: string, path: string): JsonObject | null {
  if (parent === null) return null;
  const value = parent[key];
  if (value === undefined || value === null) return null;
  if (isJsonObject(value)) return value;
  throw ItemShapeError.wrongType(path, 'an object', value);
}

export function readString(parent: JsonObject | null, key: string, path: string): string | null {
  if (parent === null) return null;
  const value = parent[key];
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return null;
  throw ItemShapeError.wrongType(path, 'a string', value);
}

export function readNumber(parent: JsonObject | null, key: string, path: string): number | null {
  if (parent === null) return null;
  const value = parent[key];
  if (typeof value === 'number') return value;
  if (value === undefined || value === null) return null;
  throw ItemShapeError.wrongType(path, 'a number', value);
}

export function readInteger(parent: JsonObject | null, key: string, path: string): number | null {
  if (parent === null) return null;
  const value = parent[key];
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') throw ItemShapeError.wrongValue(path, 'an integer', value);
  throw ItemShapeError.wrongType(path, 'an integer', value);
}

export function readBoolean(parent: JsonObject | null, key: string, path: string): boolean | null {
  if (parent === null) return null;
  const value = parent[key];
  if (typeof value === 'boolean') return value;
  if (value === undefined || value === null) return null;
  throw ItemShapeError.wrongType(path, 'a boolean', value);
}

export function readArray(parent: JsonObject | null, key: string, path: string): readonly unknown[] | null {
  if (parent === null) return null;
  const value = parent[key];
  if (Array.isArray(value)) return value;
  if (value === undefined || value === null) return null;
  throw ItemShapeError.wrongType(path, 'an array', value);
}

/**
 * A reference that the service sends either as a bare id string or as an
 * object with an id and a display name (v2 `properties.brand` is a string in
 * authentications and `{id, name}` in fingerprints).
 */
export interface IdAndName {
  id: string | null;
  name: string | null;
}

const NO_ID_AND_NAME: IdAndName = Object.freeze({ id: null, name: null });

export function readIdAndName(parent: JsonObject | null, key: string, nameKey: string, path: string): IdAndName {
  if (parent === null) return NO_ID_AND_NAME;
  const value = parent[key];
  if (typeof value === 'string') return { id: value, name: null };
  if (value === undefined || value === null) return NO_ID_AND_NAME;
  if (isJsonObject(value)) {
    return { id: readString(value, 'id', `${path}.id`), name: readString(value, nameKey, `${path}.${nameKey}`) };
  }
  throw ItemShapeError.wrongType(path, 'a string or an object', value);
}

/*
 * Lenient readers for the mirrored objects (webhooks, domains, catalog): a
 * field of an unexpected type there is a null column, never a lost object.
 * Their text is stored as a session's is (see storable-text.ts).
 */

export function stringOrNull(parent: JsonObject | null, key: string): string | null {
  const value = parent === null ? undefined : parent[key];
  return typeof value === 'string' ? storableText(value) : null;
}

export function numberOrNull(parent: JsonObject | null, key: string): number | null {
  const value = parent === null ? undefined : parent[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function objectOrNull(parent: JsonObject | null, key: string): JsonObject | null {
  const value = parent === null ? undefined : parent[key];
  return isJsonObject(value) ? value : null;
}
