/**
 * What the webhook receiver reports, injected so it can count into the
 * daemon's registry (or into nothing when it runs on its own).
 */
export interface WebhookCounters {
  /** A verified delivery was stored and its items applied. */
  accepted(): void;
  /**
   * A delivery was answered with an error: `reason` is short and fixed (bad_signature, too_large, invalid_json, ...).
   */
  refused(reason: string): void;
  /** Items of a delivery not applied because the stored row was newer. */
  stale(items: number): void;
}
