import type { WebhookCreate, WebhookFilter } from '../api/service-client.js';
import { Secret } from '../config/secret.js';
import { webhookSecretProblem } from '../config/webhook-secret-rule.js';
import { InputError, type UserError } from '../errors.js';

/** The service's minimum (api-spec "Limits"), the one rule every webhook secret is held to. */
export { MIN_SECRET_LENGTH } from '../config/webhook-secret-rule.js';

/** v1.4 webhook filter keys and their allowed values (api-spec "POST /v1/webhooks"); null: any username. */
export const WEBHOOK_FILTER_KEYS: Readonly<Record<string, readonly string[] | null>> = Object.freeze({
  'activity.name': ['authentication', 'fingerprint'],
  'activity.form_factor': ['lightbox', 'microscopic', 'free_camera'],
  'owner.user.username': null,
});

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

export interface WebhookCreateFlags {
  url: string | undefined;
  /** `--secret`; when absent, `envSecret` (IVS_WEBHOOK_SECRET, else webhooks.secret of the config) is used. */
  secret: string | undefined;
  envSecret: string | undefined;
  channel: string | undefined;
  /** `key=value[,value...]`, one per `--filter`. */
  filters: readonly string[];
}

/** A mistake in the flags of `webhooks create`: a usage error (exit 2); each message names its flag. */
const bad = (message: string): UserError => new InputError('BAD_WEBHOOK', message);

/** One `--filter key=value[,value...]`. */
export function parseFilterFlag(flag: string): WebhookFilter {
  const at = flag.indexOf('=');
  if (at <= 0) throw bad(`--filter must be key=value[,value...], got '${flag}'`);
  const key = flag.slice(0, at).trim();
  const values = flag
    .slice(at + 1)
    .split(',')
    .map((v) => v.trim());
  const allowed = WEBHOOK_FILTER_KEYS[key];
  if (!Object.hasOwn(WEBHOOK_FILTER_KEYS, key) || allowed === undefined) {
    throw bad(
      `--filter key '${key}' is not a webhook filter key (one of ${Object.keys(WEBHOOK_FILTER_KEYS).join(', ')})`,
    );
  }
  if (values.some((v) => v === ''))
    throw bad(`--filter ${key} needs at least one value, without empty ones, got '${flag}'`);
  if (allowed !== null) {
    const wrong = values.filter((v) => !allowed.includes(v));
    if (wrong.length > 0)
      throw bad(`--filter ${key} takes ${allowed.join(', ')}; got ${wrong.map((v) => `'${v}'`).join(', ')}`);
  }
  const unique = [...new Set(values)];
  return unique.length === 1 ? { key, value: unique[0] as string } : { key, values: unique };
}

/** The endpoint must be HTTPS; plain http only to this machine (the simulator). */
export function checkEndpoint(text: string | undefined): string {
  if (text === undefined || text.trim() === '')
    throw bad('--url is required: the HTTPS address deliveries are POSTed to');
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw bad(`--url is not a URL: '${text}'`);
  }
  if (url.protocol === 'https:') return url.toString();
  if (url.protocol === 'http:' && LOOPBACK.test(url.hostname)) return url.toString();
  throw bad(`--url must be an https:// address (http:// only to localhost), got ${url.protocol}//${url.host}`);
}

/**
 * Checks everything the service would check that can be checked here, so a
 * mistake costs no request: the endpoint, the secret's length (never shown),
 * and the filters (keys and values of the spec, one filter on activity.name).
 */
export function buildWebhookCreate(flags: WebhookCreateFlags): WebhookCreate {
  const endpoint = checkEndpoint(flags.url);
  const secretText = flags.secret ?? flags.envSecret;
  if (secretText === undefined || secretText === '')
    throw bad('a secret is required: --secret or IVS_WEBHOOK_SECRET (or webhooks.secret in the config file)');
  const weak = webhookSecretProblem(secretText.length);
  if (weak !== null) throw bad(weak);
  const filters = flags.filters.map(parseFilterFlag);
  const seen = new Set<string>();
  for (const f of filters) {
    if (seen.has(f.key)) throw bad(`--filter ${f.key} is given twice: list the values once, comma-separated`);
    seen.add(f.key);
  }
  if (!seen.has('activity.name'))
    throw bad('a --filter on activity.name is required, e.g. --filter activity.name=authentication,fingerprint');
  if (flags.channel !== undefined && flags.channel.trim() === '') throw bad('--channel must not be empty');
  const request: WebhookCreate = { endpoint, secretKey: new Secret(secretText), filters };
  if (flags.channel !== undefined) request.channel = flags.channel.trim();
  return request;
}
