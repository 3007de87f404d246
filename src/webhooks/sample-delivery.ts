/** The channel a test delivery carries, so that it can be told apart in `webhook_deliveries`. */
export const SAMPLE_CHANNEL = 'ivsync-send-test';

/** The webhook uuid a test delivery names when the configuration names none. */
export const SAMPLE_WEBHOOK_UUID = '00000000-0000-4000-8000-000000000000';

/**
 * The body of a test delivery: the shape of the service's deliveries
 * (api-spec "Events": a search answer plus `channel` and `webhook_uuid`) with
 * no items, so that it proves the path, the secret and the signature end to
 * end and lands in `webhook_deliveries` without touching a session. The time
 * it was sent makes each one a new delivery rather than a repeat.
 */
export function sampleDelivery(webhookUuid: string, sentAt: string): string {
  return JSON.stringify({
    channel: SAMPLE_CHANNEL,
    webhook_uuid: webhookUuid,
    sent_at: sentAt,
    item_count: 0,
    items: [],
    next_cursor: null,
  });
}
