import type { SimCursor } from './cursor.js';
import type { SimResource } from './session-record.js';

/** A search filter after validation: `values` holds the one `value` too. */
export interface SearchFilter {
  readonly key: string;
  readonly values: readonly string[];
  readonly exclude: boolean;
  readonly textMode: 'canonical' | 'verbatim';
}

export interface SearchRequest {
  readonly filters: readonly SearchFilter[];
  readonly limit: number;
  readonly returnIds: boolean;
  /** As sent; whether its shape is the one the simulator hands out is the search's to decide. */
  readonly cursor: SimCursor | null;
  readonly range: { readonly start: number | null; readonly end: number | null } | null;
  readonly photos: boolean;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export const AUTHENTICATION_FILTER_KEYS: readonly string[] = [
  'activity.form_factor',
  'owner.organization.name',
  'owner.user.username',
  'properties.brand.id',
  'properties.material.id',
  'status.flag',
  'status.result.id',
  'text_fields.customer_item_id',
  'text_fields.identifier',
  'text_fields.style_code',
  'text_fields.us_size',
];

export const FINGERPRINT_FILTER_KEYS: readonly string[] = [
  'activity.mode',
  'fingerprint_parent.service_id',
  'fingerprint_parent.customer_item_id',
  'owner.organization.name',
  'owner.user.username',
  'status.flag',
  'status.result.id',
  'text_fields.customer_item_id',
];

export const MAX_LIMIT = 25;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (message: string): { ok: false; message: string } => ({ ok: false, message });

function parseFilter(raw: unknown, index: number, allowed: readonly string[]): Parsed<SearchFilter> {
  const at = `filters[${index}]`;
  if (!isObject(raw)) return fail(`${at}: expected an object`);
  const { key, value, values, exclude, text_fields: textFields } = raw;
  if (typeof key !== 'string') return fail(`${at}.key: expected a string`);
  if (!allowed.includes(key)) return fail(`${at}.key: unknown filter key "${key}"`);
  const hasValue = value !== undefined && value !== null;
  const hasValues = values !== undefined && values !== null;
  if (hasValue === hasValues) return fail(`${at}: exactly one of value or values is required`);
  let list: string[];
  if (hasValue) {
    if (typeof value !== 'string') return fail(`${at}.value: expected a string`);
    list = [value];
  } else {
    if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string')) {
      return fail(`${at}.values: expected a non-empty array of strings`);
    }
    list = values as string[];
  }
  if (exclude !== undefined && exclude !== null && typeof exclude !== 'boolean')
    return fail(`${at}.exclude: expected a boolean`);
  if (textFields !== undefined && textFields !== null && textFields !== 'canonical' && textFields !== 'verbatim') {
    return fail(`${at}.text_fields: expected "canonical" or "verbatim"`);
  }
  return {
    ok: true,
    value: {
      key,
      values: list,
      exclude: exclude === true,
      textMode: textFields === 'verbatim' ? 'verbatim' : 'canonical',
    },
  };
}

function parseBound(raw: unknown, name: string): Parsed<number | null> {
  if (raw === undefined || raw === null) return { ok: true, value: null };
  if (typeof raw !== 'number' || !Number.isInteger(raw))
    return fail(`range.${name}: expected an integer epoch or null`);
  return { ok: true, value: raw };
}

/**
 * Validates a search body the way the service does: members are optional,
 * but a member that is present must be right. Unknown top-level members are
 * ignored (v2 documents that it accepts extra properties; v1.4 says nothing).
 */
export function parseSearchRequest(body: unknown, resource: SimResource, defaultLimit: number): Parsed<SearchRequest> {
  if (body === undefined || body === null) body = {};
  if (!isObject(body)) return fail('the request body must be a JSON object');
  const allowed = resource === 'authentications' ? AUTHENTICATION_FILTER_KEYS : FINGERPRINT_FILTER_KEYS;

  const filters: SearchFilter[] = [];
  if (body.filters !== undefined && body.filters !== null) {
    if (!Array.isArray(body.filters)) return fail('filters: expected an array');
    for (const [i, raw] of body.filters.entries()) {
      const parsed = parseFilter(raw, i, allowed);
      if (!parsed.ok) return parsed;
      filters.push(parsed.value);
    }
  }
  if (
    filters.some((f) => f.key === 'text_fields.identifier') &&
    !filters.some((f) => f.key === 'properties.brand.id')
  ) {
    return fail('a filter on text_fields.identifier must be accompanied by a filter on properties.brand.id');
  }

  let limit = defaultLimit;
  if (body.limit !== undefined && body.limit !== null) {
    if (typeof body.limit !== 'number' || !Number.isInteger(body.limit)) return fail('limit: expected an integer');
    if (body.limit < 1 || body.limit > MAX_LIMIT)
      return fail(`limit: must be between 1 and ${MAX_LIMIT}, got ${body.limit}`);
    limit = body.limit;
  }

  let returnIds = false;
  if (body.return !== undefined && body.return !== null) {
    if (body.return !== 'items' && body.return !== 'service_ids')
      return fail('return: expected "items" or "service_ids"');
    returnIds = body.return === 'service_ids';
  }

  let cursor: SimCursor | null = null;
  if (body.cursor !== undefined && body.cursor !== null) {
    const raw: unknown = body.cursor;
    if (typeof raw !== 'string' && !(Array.isArray(raw) && raw.every((p) => typeof p === 'string'))) {
      return fail('cursor: expected a string or an array of strings');
    }
    cursor = raw as SimCursor;
  }

  let range: SearchRequest['range'] = null;
  if (body.range !== undefined && body.range !== null) {
    if (!isObject(body.range)) return fail('range: expected an object');
    const start = parseBound(body.range.start, 'start');
    if (!start.ok) return start;
    const end = parseBound(body.range.end, 'end');
    if (!end.ok) return end;
    range = { start: start.value, end: end.value };
  }

  let photos = false;
  const formatOptions = body.format_options;
  if (formatOptions !== undefined && formatOptions !== null) {
    if (!isObject(formatOptions)) return fail('format_options: expected an object');
    const flag = formatOptions.return_item_photos;
    if (flag !== undefined && flag !== null && typeof flag !== 'boolean')
      return fail('format_options.return_item_photos: expected a boolean');
    photos = flag === true;
  }

  return { ok: true, value: { filters, limit, returnIds, cursor, range, photos } };
}
