/** The world's own record of one session; the v1.4 and v2 items are rendered from it. */
export type SimResource = 'authentications' | 'fingerprints';

/**
 * Ways a stored item can come back malformed or hostile from the service:
 * the last three are valid JSON that some target cannot store as it is
 * (see poison.ts): a 300,000-character service_id, an unknown key holding a
 * list nested 100,000 deep, and an older copy of the item served just before
 * it on the same page.
 */
export type BadItemKind =
  | 'missing_service_id'
  | 'epoch_string'
  | 'missing_timestamp'
  | 'final_not_boolean'
  | 'huge_id'
  | 'deep_nesting'
  | 'duplicate_on_page';

export interface SessionRecord {
  readonly serviceId: string;
  readonly resource: SimResource;
  owner: string;
  /**
   * Created time in integer microseconds since the epoch. Integers keep the
   * ordering, the range bounds and the cursor positions exact.
   */
  readonly createdMicros: number;
  /** Last change at the service (v2 last_updated_at); null when never changed. */
  updatedMicros: number | null;
  /** Bumped by every mutation; webhook items carry it. */
  updateCounter: number;
  formFactor: string;
  resultId: string;
  initialResultId: string;
  final: boolean;
  flag: string | null;
  customerItemId: string;
  // authentications
  productCategory: string | null;
  productGroup: string | null;
  brandId: string;
  materialId: string;
  identifier: string;
  styleCode: string;
  usSize: string;
  retakeRequired: boolean;
  // fingerprints
  mode: 'register' | 'compare' | null;
  parentId: string | null;
  deviceId: string;
  appVersion: string;
  /** 0: none; 1 or 2: the item carries keys the spec does not list (clients must tolerate them). */
  extraKeys: 0 | 1 | 2;
  bad: BadItemKind | null;
  /** The service sends the item with strings no target can store as they are (see poison.ts). */
  poison: boolean;
}

/** Sort order of every session list: created time, then service_id (ascending; searches walk it backwards). */
export function compareKey(aMicros: number, aId: string, bMicros: number, bId: string): number {
  if (aMicros !== bMicros) return aMicros < bMicros ? -1 : 1;
  if (aId === bId) return 0;
  return aId < bId ? -1 : 1;
}

export function compareRecords(a: SessionRecord, b: SessionRecord): number {
  return compareKey(a.createdMicros, a.serviceId, b.createdMicros, b.serviceId);
}
