export {
  checkSignature,
  verifySignature,
  SIGNATURE_HEADER,
  type SignatureCheck,
  type SignatureVerdict,
} from './verify-signature.js';
export { candidateSecrets, expectedSecret, hasAnySecret, type WebhookSecrets } from './webhook-secrets.js';
export {
  createWebhookReceiver,
  WebhookReceiver,
  type DeliveryEvent,
  type DeliverySink,
  type RefusalReason,
  type WebhookReceiverDeps,
} from './webhook-receiver.js';
export { parseDomainVerifications, verificationValue, DOMAIN_VERIFICATION_PREFIX } from './domain-verification.js';
export { deliveryId, parseDeliveryBody, type DeliveryBody } from './delivery-body.js';
export { normalizeDelivery, deliveryItemApiVersion } from './normalize-delivery.js';
export { refreshReason, type RefreshReason } from './refresh-decision.js';
export { SessionRefresher, type SessionRefresherOptions } from './session-refresher.js';
export type { ReceiverLogger } from './receiver-logger.js';
export {
  buildWebhookCreate,
  checkEndpoint,
  parseFilterFlag,
  MIN_SECRET_LENGTH,
  WEBHOOK_FILTER_KEYS,
  type WebhookCreateFlags,
} from './webhook-create-request.js';
export { explainManagementFailure, rethrowManagementFailure, type ManagementOperation } from './management-failure.js';
