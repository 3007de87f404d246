import { isIPv4 } from 'node:net';
import { UserError } from '../errors.js';

/**
 * Whether `hostname` (as `URL.hostname` spells it) names this machine:
 * `localhost`, 127.0.0.0/8 or ::1.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]' || host === '::1') return true;
  return isIPv4(host) && host.startsWith('127.');
}

/**
 * Validates the service root. The token travels in a header on every
 * request, so plain http is accepted only where it cannot leave the machine
 * (the simulator, a local tunnel). Returns the root without a trailing slash,
 * ready to have `/v1/...` appended.
 */
export function parseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UserError(
      'INVALID_BASE_URL',
      `the base URL must be an absolute URL such as https://api.example.com, got ${JSON.stringify(raw)}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new UserError(
      'INVALID_BASE_URL',
      'the base URL must not carry a user name or password; the token is given separately',
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UserError(
      'INVALID_BASE_URL',
      `the base URL must not have a query or fragment, got ${url.origin}${url.pathname}${url.search}${url.hash}`,
    );
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UserError(
      'INSECURE_BASE_URL',
      `the base URL must use https:// (plain http:// is accepted only for loopback hosts), got ${url.origin}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UserError('INVALID_BASE_URL', `the base URL must use https://, got ${url.protocol}//`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
