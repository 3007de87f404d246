import { createHmac } from 'node:crypto';
import type { Secret } from '../config/secret.js';

/**
 * The service's signing, as the fake service does it: the simulator stands
 * apart from ivsync's stack (it imports none of it), so `webhooks send-test`
 * has its own copy in webhooks/sign-delivery.ts.
 *
 * The `Service-Signature` header value: `SHA256:` and base64 of HMAC-SHA256
 * over the raw body text.
 */
export function signDelivery(secret: Secret, body: string): string {
  return `SHA256:${createHmac('sha256', secret.reveal()).update(body, 'utf8').digest('base64')}`;
}
