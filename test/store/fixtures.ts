import type {
  AuthenticationRow,
  FingerprintRow,
  NormalizedAuthentication,
  NormalizedBatch,
  NormalizedFingerprint,
  NormalizedSession,
  RejectedRow,
} from '../../src/normalize/rows.js';
import type { WindowKey } from '../../src/store/sink.js';

/** `2026-01-01T00:00:SS.000000Z`-style times: t(5) is five seconds after t(0). */
export function t(seconds: number): string {
  return new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toISOString().replace('Z', '000Z');
}

const base = (id: string, createdEpoch: number) => ({
  service_id: id,
  account: 'default',
  api_version: '1.4' as const,
  result_id: 'authentic',
  result_display: 'Authentic',
  result_final: true,
  flag: null,
  customer_item_id: null,
  organization_name: 'org',
  username: 'user',
  organization_id: null,
  user_id: null,
  created_at: new Date(createdEpoch * 1000).toISOString().replace('Z', '000Z'),
  created_epoch: createdEpoch,
  last_updated_at: null,
  update_counter: null,
  first_seen_at: t(0),
  last_synced_at: t(0),
  missing_since: null,
  source: 'search' as const,
  raw: JSON.stringify({ service_id: id }),
});

/** Bookkeeping columns: not part of what the service sent. */
const BOOKKEEPING = new Set(['account', 'first_seen_at', 'last_synced_at', 'missing_since', 'source', 'raw']);

/**
 * A session's `raw` stands for the item text the service sent, so unless a
 * test gives its own, it is derived from the content: two observations with
 * the same content have the same text, and any change of content changes it.
 */
function withRaw<S extends NormalizedSession>(session: S, given: string | undefined): S {
  if (given !== undefined) return session;
  const content = Object.fromEntries(Object.entries(session.row).filter(([k]) => !BOOKKEEPING.has(k)));
  const raw = JSON.stringify({
    ...content,
    textFields: session.textFields,
    images: session.images,
    warnings: session.warnings.map((w) => w.code),
  });
  return { ...session, row: { ...session.row, raw } };
}

export function auth(
  id: string,
  row: Partial<AuthenticationRow> = {},
  extra: Partial<NormalizedAuthentication> = {},
): NormalizedAuthentication {
  return withRaw<NormalizedAuthentication>(
    {
      resource: 'authentications',
      row: {
        ...base(id, 1_000),
        form_factor: 'microscopic',
        product_category: 'luxury',
        product_group: 'bags',
        brand_id: 'acme',
        brand_display: 'Acme',
        material_id: null,
        material_display: null,
        initial_result_id: null,
        retake_required: false,
        identifier: null,
        style_code: null,
        us_size: null,
        certificate_id: null,
        certificate_preview: null,
        certificate_site: null,
        ...row,
      },
      textFields: [],
      images: [],
      warnings: [],
      preserve: [],
      ...extra,
    },
    row.raw,
  );
}

export function fp(
  id: string,
  row: Partial<FingerprintRow> = {},
  extra: Partial<NormalizedFingerprint> = {},
): NormalizedFingerprint {
  return withRaw<NormalizedFingerprint>(
    {
      resource: 'fingerprints',
      row: {
        ...base(id, 1_000),
        result_id: 'registered',
        result_display: 'Registered',
        mode: 'register',
        form_factor: 'microscopic',
        parent_service_id: null,
        parent_customer_item_id: null,
        parent_relationship_type: null,
        parent_accessible: null,
        ...row,
      },
      textFields: [],
      images: [],
      warnings: [],
      preserve: [],
      ...extra,
    },
    row.raw,
  );
}

export function rejected(id: string, seenAt: string): RejectedRow {
  return {
    id,
    resource: 'authentications',
    service_id: null,
    reason: 'status.result: expected an object',
    raw: '{"bad":true}',
    seen_at: seenAt,
    account: 'default',
  };
}

export function batch(sessions: NormalizedSession[], rejectedRows: RejectedRow[] = []): NormalizedBatch {
  return { sessions, rejected: rejectedRows };
}

export const authWindow: WindowKey = {
  account: 'default',
  resource: 'authentications',
  apiVersion: '1.4',
  windowStart: 0,
};
