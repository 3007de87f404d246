import type { Secret } from '../config/secret.js';

/**
 * The secrets deliveries may be signed with: one per webhook uuid, and a
 * default for webhooks without one of their own (config `webhooks.secrets`,
 * `webhooks.secret` / IVS_WEBHOOK_SECRET).
 */
export interface WebhookSecrets {
  readonly byUuid: Readonly<Record<string, Secret>>;
  readonly defaultSecret: Secret | undefined;
}

/** Every configured secret once: the candidates a signature is checked against before the body may be parsed. */
export function candidateSecrets(secrets: WebhookSecrets): Secret[] {
  const all = [...Object.values(secrets.byUuid)];
  if (secrets.defaultSecret !== undefined) all.push(secrets.defaultSecret);
  return [...new Set(all)];
}

/** The secret that must have signed a delivery of `webhookUuid`: its own, else the default. */
export function expectedSecret(secrets: WebhookSecrets, webhookUuid: string | null): Secret | undefined {
  if (webhookUuid !== null && Object.hasOwn(secrets.byUuid, webhookUuid)) return secrets.byUuid[webhookUuid];
  return secrets.defaultSecret;
}

export function hasAnySecret(secrets: WebhookSecrets): boolean {
  return secrets.defaultSecret !== undefined || Object.keys(secrets.byUuid).length > 0;
}
