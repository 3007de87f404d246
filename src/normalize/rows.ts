/**
 * The typed rows the normalizer produces and the store writes. Field names are
 * the column names of src/schema/schema.ts (the analyst's contract).
 */

import type { ApiVersion, ResourceName as Resource } from '../config/constants.js';

export type { ApiVersion, Resource };
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

export type TextFieldRow = {
  service_id: string;
  key: string;
  value: string | null;
};

export type ImageRow = {
  service_id: string;
  name: string;
  url: string | null;
  /** JSON text, or null. */
  metadata: string | null;
};

export type WarningRow = {
  service_id: string;
  code: string;
  message: string | null;
  seen_at: string;
};

export type RejectedRow = {
  id: string;
  resource: string;
  service_id: string | null;
  reason: string;
  raw: string;
  seen_at: string;
  account: string | null;
};

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

/*
 * Mirror rows (Sink.replaceMirror). Type aliases rather than interfaces so
 * they are assignable to Record<string, unknown>.
 */

/** A `webhooks` row. */
export type WebhookRow = {
  webhook_uuid: string;
  account: string;
  channel: string | null;
  endpoint_url: string | null;
  /** JSON text, or null. */
  filters: string | null;
  created_at: string | null;
  created_epoch: number | null;
  organization_name: string | null;
  username: string | null;
  active: boolean;
  last_synced_at: string;
  raw: string;
};

/** A `domains` row. */
export type DomainRow = {
  domain_uuid: string;
  account: string;
  domain_name: string | null;
  organization_name: string | null;
  username: string | null;
  created_at: string | null;
  created_epoch: number | null;
  last_synced_at: string;
  raw: string;
};

/** A `catalog_brands` row (v2 authentication config). */
export type CatalogBrandRow = {
  account: string;
  brand_id: string;
  name: string | null;
  /** JSON text of the brand entry as received. */
  raw: string;
  last_synced_at: string;
};

/** A `catalog_materials` row (v2 authentication config). */
export type CatalogMaterialRow = {
  account: string;
  brand_id: string;
  material_id: string;
  name: string | null;
};

/** A `catalog_detail_fields` row (v2 authentication config). */
export type CatalogDetailFieldRow = {
  account: string;
  brand_id: string;
  field_alias: string;
  name: string | null;
};

/** A `catalog_categories` row (v2 supported catalog). */
export type CatalogCategoryRow = {
  account: string;
  product_category: string;
  customer_product_group: string;
  display_product_category: string | null;
  display_customer_product_group: string | null;
  /** JSON text of the category's brands array, or null. */
  brands: string | null;
};

/** The rows of the v2 authentication config, one array per mirror table. */
export interface AuthConfigRows {
  catalog_brands: CatalogBrandRow[];
  catalog_materials: CatalogMaterialRow[];
  catalog_detail_fields: CatalogDetailFieldRow[];
  /** Entries that could not become rows (no id), each as `path: reason`; the rest are kept. */
  problems: string[];
}

/** The rows of the v2 supported catalog. */
export interface CatalogRows {
  catalog_categories: CatalogCategoryRow[];
  /** Entries that could not become rows, each as `path: reason`. */
  problems: string[];
}
