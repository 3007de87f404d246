import { organizationNameOf } from './account.js';

/** A webhook filter after validation. */
export interface WebhookFilter {
  readonly key: string;
  readonly values: readonly string[];
}

export interface WebhookCreateInput {
  readonly endpoint: string;
  readonly secret: string;
  readonly channel: string;
  /** The filters as the caller sent them (echoed back by the service). */
  readonly rawFilters: readonly Record<string, unknown>[];
  readonly filters: readonly WebhookFilter[];
}

export interface WebhookCreateContext {
  readonly owner: string;
  readonly registeredDomains: readonly string[];
  readonly allowHttpLoopback: boolean;
  readonly activeCount: number;
}

export type WebhookCreateResult =
  { ok: true; value: WebhookCreateInput } | { ok: false; status: 400 | 403 | 409; message: string };

export const MAX_ACTIVE_WEBHOOKS = 10;
export const MIN_SECRET_LENGTH = 20;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost']);
const ACTIVITY_NAMES = new Set(['authentication', 'fingerprint']);
const FORM_FACTORS = new Set(['lightbox', 'microscopic', 'free_camera']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (message: string): WebhookCreateResult => ({ ok: false, status: 400, message });

/**
 * Validates a webhook creation body with the statuses of the spec (400 malformed, 403 not for this token, 409 too
 * many).
 */
export function parseWebhookCreate(body: unknown, ctx: WebhookCreateContext): WebhookCreateResult {
  if (!isObject(body)) return bad('the request body must be a JSON object');
  const { endpoint, secret_key: secret, channel, filters } = body;
  if (!isObject(endpoint) || endpoint.type !== 'url' || typeof endpoint.value !== 'string') {
    return bad('endpoint: expected {"type": "url", "value": "<https URL>"}');
  }
  let url: URL;
  try {
    url = new URL(endpoint.value);
  } catch {
    return bad('endpoint.value: not a URL');
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback && ctx.allowHttpLoopback)) {
    return bad('endpoint.value: webhook endpoints must be HTTPS');
  }
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
    return bad(`secret_key: at least ${MIN_SECRET_LENGTH} characters are required`);
  }
  if (channel !== undefined && channel !== null && (typeof channel !== 'string' || channel === ''))
    return bad('channel: expected a string');

  if (filters !== undefined && filters !== null && !Array.isArray(filters)) return bad('filters: expected an array');
  const rawFilters = (filters ?? []) as unknown[];
  const parsed: WebhookFilter[] = [];
  const rawKept: Record<string, unknown>[] = [];
  for (const [i, raw] of rawFilters.entries()) {
    if (!isObject(raw) || typeof raw.key !== 'string') return bad(`filters[${i}]: expected an object with a key`);
    const hasValue = raw.value !== undefined && raw.value !== null;
    const hasValues = raw.values !== undefined && raw.values !== null;
    if (hasValue === hasValues) return bad(`filters[${i}]: exactly one of value or values is required`);
    const values = hasValue ? [raw.value] : raw.values;
    if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string')) {
      return bad(`filters[${i}]: values must be strings`);
    }
    const strings = values as string[];
    if (raw.key === 'activity.name') {
      if (!strings.every((v) => ACTIVITY_NAMES.has(v)))
        return bad(`filters[${i}]: activity.name must be authentication or fingerprint`);
    } else if (raw.key === 'activity.form_factor') {
      if (!strings.every((v) => FORM_FACTORS.has(v))) return bad(`filters[${i}]: unknown form factor`);
    } else if (raw.key === 'owner.user.username') {
      const organization = organizationNameOf(ctx.owner);
      if (!strings.every((v) => organizationNameOf(v) === organization)) {
        return { ok: false, status: 403, message: 'owner.user.username: the user is not in your organization' };
      }
    } else {
      return bad(`filters[${i}].key: unknown webhook filter key "${raw.key}"`);
    }
    parsed.push({ key: raw.key, values: strings });
    rawKept.push(raw);
  }
  if (!parsed.some((f) => f.key === 'activity.name')) return bad('filters: a filter on activity.name is required');
  if (!ctx.registeredDomains.includes(url.hostname)) {
    return {
      ok: false,
      status: 403,
      message: `endpoint.value: the domain ${url.hostname} is not registered to your organization`,
    };
  }
  if (ctx.activeCount >= MAX_ACTIVE_WEBHOOKS) {
    return { ok: false, status: 409, message: `at most ${MAX_ACTIVE_WEBHOOKS} active webhooks are allowed` };
  }
  return {
    ok: true,
    value: {
      endpoint: endpoint.value,
      secret,
      channel: typeof channel === 'string' ? channel : 'default',
      rawFilters: rawKept,
      filters: parsed,
    },
  };
}
