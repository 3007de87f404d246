/**
 * The typed rows the normalizer produces and the store writes. Field names are
 * the column names of src/store/schema.ts (the analyst's contract).
 */

export type ApiVersion = '1.4' | '2';
export type Resource = 'authentications' | 'fingerprints';
export type Source = 'search' | 'lookup' | 'get' | 'webhook';

interface SessionRowBase {
  service_id: string;
  account: string;
  api_version: ApiVersion;
  result_id: string | null;
  result_display: string | null;
  result_final: boolean | null;
  flag: string | null;
  customer_item_id: string | null;
  organization_name: string | null;
  username: string | null;
  organization_id: string | null;
  user_id: string | null;
  created_at: string | null;
  created_epoch: number | null;
  last_updated_at: string | null;
  update_counter: number | null;
  /** Set by the store on first insert; the normalizer puts the observation time here. */
  first_seen_at: string;
  /** The observation time (ISO 8601 UTC). */
  last_synced_at: string;
  missing_since: string | null;
  source: Source;
  /** JSON text of the item as received. */
  raw: string;
}

export interface AuthenticationRow extends SessionRowBase {
  form_factor: string | null;
  product_category: string | null;
  product_group: string | null;
  brand_id: string | null;
  brand_display: string | null;
  material_id: string | null;
  material_display: string | null;
  initial_result_id: string | null;
  retake_required: boolean | null;
  identifier: string | null;
  style_code: string | null;
  us_size: string | null;
  certificate_id: string | null;
  certificate_preview: string | null;
  certificate_site: string | null;
}

export interface FingerprintRow extends SessionRowBase {
  mode: string | null;
  form_factor: string | null;
  parent_service_id: string | null;
  parent_customer_item_id: string | null;
  parent_relationship_type: string | null;
  parent_accessible: boolean | null;
}

export interface TextFieldRow {
  service_id: string;
  key: string;
  value: string | null;
}

export interface ImageRow {
  service_id: string;
  name: string;
  url: string | null;
  /** JSON text, or null. */
  metadata: string | null;
}

export interface WarningRow {
  service_id: string;
  code: string;
  message: string | null;
  seen_at: string;
}

export interface RejectedRow {
  id: string;
  resource: string;
  service_id: string | null;
  reason: string;
  raw: string;
  seen_at: string;
  account: string | null;
}

interface NormalizedSessionBase {
  textFields: TextFieldRow[];
  images: ImageRow[];
  warnings: WarningRow[];
  /**
   * Columns whose stored value must be kept when this observation replaces the
   * row, because the observation cannot know them (a webhook's fingerprint item
   * has no fingerprint_parent: never erase the parent a poll stored).
   */
  preserve: string[];
}

export interface NormalizedAuthentication extends NormalizedSessionBase {
  resource: 'authentications';
  row: AuthenticationRow;
}

export interface NormalizedFingerprint extends NormalizedSessionBase {
  resource: 'fingerprints';
  row: FingerprintRow;
}

export type NormalizedSession = NormalizedAuthentication | NormalizedFingerprint;

/** What normalizing one page (or one delivery) gives: sessions to merge and items kept aside. */
export interface NormalizedBatch {
  sessions: NormalizedSession[];
  rejected: RejectedRow[];
}

/** What the normalizer needs to know about an observation besides the item itself. */
export interface ObservationContext {
  account: string;
  source: Source;
  /** ISO 8601 UTC time of the observation (injected clock). */
  observedAt: string;
  /** Top-level `warnings` of the response the item came in. */
  responseWarnings?: readonly unknown[];
  /** Webhook deliveries carry one per item. */
  updateCounter?: number | null;
}
