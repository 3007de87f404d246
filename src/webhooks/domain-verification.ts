import { InputError } from '../errors.js';

/** The page the operator checks to register a domain (api-spec "Events", Registration prerequisites). */
export const DOMAIN_VERIFICATION_PREFIX = '/.well-known/service-domain-verification/';

// The operator's token becomes one path segment; anything that could leave it is refused.
const TOKEN = /^[A-Za-z0-9._~-]+$/;

/** `--domain-verification TOKEN=VALUE` (repeatable) as a token -> value map. */
export function parseDomainVerifications(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const at = flag.indexOf('=');
    const token = at < 0 ? '' : flag.slice(0, at);
    const value = at < 0 ? '' : flag.slice(at + 1);
    if (!TOKEN.test(token) || value === '') {
      throw new InputError(
        'BAD_DOMAIN_VERIFICATION',
        `--domain-verification must be TOKEN=VALUE (TOKEN of letters, digits, '.', '_', '~', '-'), got '${flag}'`,
      );
    }
    if (Object.hasOwn(out, token) && out[token] !== value) {
      throw new InputError(
        'BAD_DOMAIN_VERIFICATION',
        `--domain-verification gives token '${token}' twice with different values`,
      );
    }
    out[token] = value;
  }
  return out;
}

/** The value to serve for a request path, or undefined when the path is not a configured verification page. */
export function verificationValue(
  pathname: string,
  verifications: Readonly<Record<string, string>>,
): string | undefined {
  if (!pathname.startsWith(DOMAIN_VERIFICATION_PREFIX)) return undefined;
  const token = pathname.slice(DOMAIN_VERIFICATION_PREFIX.length);
  return Object.hasOwn(verifications, token) ? verifications[token] : undefined;
}
