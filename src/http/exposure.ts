import { isIP } from 'node:net';
import { Secret } from '../config/secret.js';
import { UserError } from '../errors.js';

/** The environment variable that holds the bearer token of the HTTP interface. */
export const UI_TOKEN_ENV = 'IVS_UI_TOKEN';

/** Whether `host` only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare.toLowerCase().startsWith('::ffff:127.');
  return false;
}

/** Who may use the routes that are not public (`/healthz` and the webhook receiver are). */
export type Exposure = { auth: 'none' } | { auth: 'bearer'; token: Secret } | { auth: 'refused'; reason: string };

/**
 * The rule of the HTTP interface: on loopback anyone on the machine may read
 * (as they may read the target file, and a browser sends no bearer token);
 * beyond it every non-public route needs the token, and with none set the
 * server must not start.
 */
export function exposureOf(host: string, token: string | undefined, hasPrivateRoutes: boolean): Exposure {
  if (isLoopback(host) || !hasPrivateRoutes) return { auth: 'none' };
  if (token !== undefined && token !== '') return { auth: 'bearer', token: new Secret(token) };
  return {
    auth: 'refused',
    reason:
      `listening on ${host} (beyond loopback) needs ${UI_TOKEN_ENV} set: ` +
      'every route but /healthz and /webhooks asks for it as a bearer token',
  };
}

/** The exposure, or the one-line error that stops the command before it listens. */
export function requireExposure(
  host: string,
  env: Readonly<Record<string, string | undefined>>,
  hasPrivateRoutes = true,
): Exclude<Exposure, { auth: 'refused' }> {
  const exposure = exposureOf(host, env[UI_TOKEN_ENV], hasPrivateRoutes);
  if (exposure.auth === 'refused') throw new UserError('UI_TOKEN_REQUIRED', exposure.reason);
  return exposure;
}
