import type { Sink } from '../store/sink.js';

export interface WebhookOwnersOptions {
  /** The configured accounts, by name. */
  accounts: readonly string[];
  /** Webhook uuids an account's configuration names as its own. */
  configured: ReadonlyMap<string, string>;
  /**
   * The `webhooks` mirror (filled by `ivsync webhooks list|create|show`) tells which account's token listed a webhook.
   */
  sink: Pick<Sink, 'mirrorRows'>;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /**
   * A webhook found in neither place reads the mirror again, at most this often.
   * @default 5000
   */
  rereadMs?: number;
}

/**
 * Which account owns a delivery's webhook. With one account, that account
 * owns every webhook. With several, the configuration (`accounts[].webhooks`)
 * decides first, then the `webhooks` mirror; a webhook no account owns gets
 * undefined, and the receiver refuses its deliveries rather than writing
 * them under a guessed account.
 */
export function webhookOwners(
  options: WebhookOwnersOptions,
): (webhookUuid: string | null) => Promise<string | undefined> {
  const only = options.accounts.length === 1 ? options.accounts[0] : undefined;
  const known = new Set(options.accounts);
  const rereadMs = options.rereadMs ?? 5000;
  let mirrored = new Map<string, string>();
  let readAt = -Infinity;
  const reread = async (): Promise<void> => {
    readAt = options.clock();
    const rows = await options.sink.mirrorRows('webhooks', null);
    mirrored = new Map(
      rows.filter((r) => known.has(String(r.account))).map((r) => [String(r.webhook_uuid), String(r.account)]),
    );
  };
  return async (webhookUuid) => {
    if (only !== undefined) return only;
    if (webhookUuid === null) return undefined;
    const configured = options.configured.get(webhookUuid);
    if (configured !== undefined) return configured;
    if (!mirrored.has(webhookUuid) && options.clock() - readAt >= rereadMs) await reread();
    return mirrored.get(webhookUuid);
  };
}
