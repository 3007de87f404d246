import { InputError, type InputSource } from '../errors.js';
import { Secret } from './secret.js';

/** One alert URL in the config file: the URL itself, or `{ env: NAME }`, the variable that holds it. */
export type AlertUrlRef = string | { readonly env: string };

/**
 * How logs and errors name an alert URL: its scheme and host only. A chat
 * tool's incoming webhook carries its secret in the path (Slack's
 * `/services/T…/B…/secret`) or the query, so neither is ever shown.
 */
export function alertUrlLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return '[not a URL]';
  }
}

function checked(text: string, source: InputSource): Secret {
  let protocol: string;
  try {
    protocol = new URL(text).protocol;
  } catch {
    throw new InputError('BAD_ALERT_URL', 'must be an http:// or https:// URL', { source, value: alertUrlLabel(text) });
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new InputError('BAD_ALERT_URL', `must be an http:// or https:// URL, got a ${protocol} one`, {
      source,
      value: alertUrlLabel(text),
    });
  }
  return new Secret(text);
}

/**
 * The alert URLs: `IVS_ALERTS_URL` (one or several, separated by spaces or
 * commas) wins over the file's `alerts.url`. Each is held as a Secret: only
 * the sender reveals it, to put it on the wire.
 */
export function alertUrlsOf(
  envText: string | undefined,
  fileValue: AlertUrlRef | readonly AlertUrlRef[] | undefined,
  env: Readonly<Record<string, string | undefined>>,
  file: string,
): readonly Secret[] {
  if (envText !== undefined && envText.trim() !== '') {
    return envText
      .split(/[\s,]+/)
      .filter((t) => t !== '')
      .map((t) => checked(t, { kind: 'env', name: 'IVS_ALERTS_URL' }));
  }
  if (fileValue === undefined) return [];
  const refs: readonly AlertUrlRef[] =
    typeof fileValue === 'string' || !Array.isArray(fileValue) ? [fileValue as AlertUrlRef] : fileValue;
  return refs.flatMap((ref, index) => {
    const key = refs === fileValue ? `alerts.url.${index}` : 'alerts.url';
    if (typeof ref === 'string') return [checked(ref, { kind: 'config', key, file })];
    const text = env[ref.env];
    // A variable not set is no alert URL, as for the webhook secrets: the file can name one that only production sets.
    return text ? [checked(text, { kind: 'env', name: ref.env })] : [];
  });
}
