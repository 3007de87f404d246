import type { Config } from '../config/config.js';
import type { DeliveryStore } from '../store/sink.js';
import type { ReceiverLogger } from '../webhooks/receiver-logger.js';
import { webhookOwners } from '../webhooks/webhook-owners.js';
import {
  createWebhookReceiver,
  type DeliveryEvent,
  type DeliverySink,
  type WebhookReceiver,
} from '../webhooks/webhook-receiver.js';
import type { BoundAccount } from './bind-accounts.js';

/**
 * The webhook receiver for the configured accounts: each delivery is written
 * under the account that owns its webhook, and followed up through that
 * account's client (when it has one).
 */
export function receiverFor(
  config: Config,
  parts: {
    /** Where deliveries are written, and the mirror of the webhooks that names each one's owner. */
    sink: DeliverySink & Pick<DeliveryStore, 'mirrorRows'>;
    /** Every configured account the process serves, with its client when the service can be reached. */
    accounts: ReadonlyArray<{ name: string; bound?: BoundAccount | undefined }>;
    logger: ReceiverLogger;
    clock: () => number;
    onDelivery?: (event: DeliveryEvent) => void;
  },
): WebhookReceiver {
  const configured = new Map<string, string>();
  for (const account of config.accounts) for (const uuid of account.webhooks) configured.set(uuid, account.name);
  return createWebhookReceiver({
    sink: parts.sink,
    secrets: { byUuid: config.webhooks.secrets, defaultSecret: config.webhooks.defaultSecret },
    accounts: parts.accounts.map((a) => ({ name: a.name, client: a.bound?.client })),
    owner: webhookOwners({
      accounts: parts.accounts.map((a) => a.name),
      configured,
      sink: parts.sink,
      clock: parts.clock,
    }),
    path: config.webhooks.path,
    maxBodyBytes: config.webhooks.maxBodyBytes,
    clock: parts.clock,
    logger: parts.logger,
    ...(parts.onDelivery ? { onDelivery: parts.onDelivery } : {}),
  });
}
