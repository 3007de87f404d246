import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Secret } from '../config/secret.js';

/** The header the service signs deliveries in (api-spec "Authentication", 4). */
export const SIGNATURE_HEADER = 'service-signature';

/** What a `Service-Signature` header says about a body. */
export type SignatureVerdict = 'ok' | 'missing' | 'malformed' | 'mismatch';

export type SignatureCheck =
  | {
      verdict: 'ok';
      /** Every given secret whose HMAC equals the signature (usually one). */ matched: readonly Secret[];
    }
  | { verdict: Exclude<SignatureVerdict, 'ok'>; matched: readonly [] };

const DIGEST_BYTES = 32;
// Standard base64 with padding, as the spec says; base64url or hex is not what the service sends.
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Checks `SHA256:<base64>` = base64(HMAC-SHA256(secret, raw body)) against
 * each secret, in constant time per secret, on the raw bytes before anything
 * parses them. The body bytes are the UTF-8 text the service signed, so the
 * HMAC runs over them as they are.
 *
 * The header must have exactly two colon-separated parts. The hash name is
 * compared case-insensitively (`SHA256`, `sha256`): like other protocol tokens
 * its spelling proves nothing, the HMAC does. A `sha256=<hex>` header (the
 * style of other services) has one part and is malformed, as is a signature
 * that is not padded base64 of a 32-byte digest.
 */
export function checkSignature(
  rawBody: Buffer | string,
  header: string | readonly string[] | undefined,
  secrets: readonly Secret[],
): SignatureCheck {
  if (header === undefined || header.length === 0) return { verdict: 'missing', matched: [] };
  // Two Service-Signature headers cannot both be the service's one signature.
  if (typeof header !== 'string') return { verdict: 'malformed', matched: [] };
  const parts = header.trim().split(':');
  if (parts.length !== 2) return { verdict: 'malformed', matched: [] };
  const [name, encoded] = parts as [string, string];
  if (name.toUpperCase() !== 'SHA256') return { verdict: 'malformed', matched: [] };
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return { verdict: 'malformed', matched: [] };
  const given = Buffer.from(encoded, 'base64');
  if (given.length !== DIGEST_BYTES) return { verdict: 'malformed', matched: [] };

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const matched: Secret[] = [];
  // Every secret is tried, also after a match, so the time taken does not tell which one signed.
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret.reveal()).update(body).digest();
    if (timingSafeEqual(expected, given)) matched.push(secret);
  }
  return matched.length > 0 ? { verdict: 'ok', matched } : { verdict: 'mismatch', matched: [] };
}

/** The verdict alone: `ok` when one of `secrets` signed `rawBody`. */
export function verifySignature(
  rawBody: Buffer | string,
  header: string | readonly string[] | undefined,
  secrets: readonly Secret[],
): SignatureVerdict {
  return checkSignature(rawBody, header, secrets).verdict;
}
