import { InputError, type InputSource } from '../errors.js';

/**
 * Shortest webhook secret ivsync takes, wherever it comes from (`--secret`,
 * IVS_WEBHOOK_SECRET, `webhooks.secret`, `webhooks.secrets`) and whatever
 * takes it (`webhooks create`, `webhooks serve`, the daemon's receiver): the
 * service refuses a shorter one when a webhook is created, so a receiver
 * that took one would wait for deliveries no webhook can send, and a short
 * HMAC key is a guessable one.
 */
export const MIN_SECRET_LENGTH = 20;

/** Why a secret of `length` characters cannot sign webhooks, or null when it can; never quotes the secret. */
export function webhookSecretProblem(length: number): string | null {
  if (length >= MIN_SECRET_LENGTH) return null;
  const wanted = `a webhook secret must be at least ${MIN_SECRET_LENGTH} characters`;
  return `${wanted} (it has ${length}); use a long random string`;
}

/** Throws the one-line input error for a webhook secret that is too short, naming where it came from. */
export function checkWebhookSecret(text: string, source: InputSource): void {
  const problem = webhookSecretProblem(text.length);
  if (problem !== null) throw new InputError('WEAK_WEBHOOK_SECRET', problem, { source });
}
