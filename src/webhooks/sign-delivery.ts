import { createHmac } from 'node:crypto';
import type { Secret } from '../config/secret.js';

/**
 * Signs a delivery as the service does (api-spec "Authentication", 4), for
 * `webhooks send-test`; verify-signature.ts checks it.
 *
 * The `Service-Signature` header value: `SHA256:` and base64 of HMAC-SHA256
 * over the raw body text.
 */
export function signDelivery(secret: Secret, body: string): string {
  return `SHA256:${createHmac('sha256', secret.reveal()).update(body, 'utf8').digest('base64')}`;
}
