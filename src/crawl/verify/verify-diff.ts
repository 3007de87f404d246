import type { NormalizedSession, Resource } from '../../normalize/rows.js';
import { isNewer, type Observation } from '../../store/pages/merge-rule.js';
import type { VerifyFinding } from '../../store/sink.js';

/**
 * The typed columns a verify compares: what the service says about a
 * session, never ivsync's own bookkeeping (times seen, source, raw) nor
 * display strings, which follow the Accept-Language of the request.
 */
export const VERIFIED_COLUMNS: Readonly<Record<Resource, readonly string[]>> = {
  authentications: [
    'result_id',
    'result_final',
    'initial_result_id',
    'flag',
    'retake_required',
    'form_factor',
    'product_category',
    'product_group',
    'brand_id',
    'material_id',
    'customer_item_id',
    'identifier',
    'style_code',
    'us_size',
    'organization_name',
    'username',
    'organization_id',
    'user_id',
    'certificate_id',
  ],
  fingerprints: [
    'mode',
    'form_factor',
    'result_id',
    'result_final',
    'flag',
    'customer_item_id',
    'parent_service_id',
    'parent_customer_item_id',
    'parent_relationship_type',
    'parent_accessible',
    'organization_name',
    'username',
    'organization_id',
    'user_id',
  ],
};

/**
 * A row stored from the other interface (v1.4 against v2) differs in
 * columns that only one of them fills, and in spellings (v1.4 `match` is v2
 * `verified`); only these mean the same in both.
 */
export const CROSS_INTERFACE_COLUMNS: readonly string[] = [
  'result_final',
  'flag',
  'form_factor',
  'mode',
  'customer_item_id',
  'parent_service_id',
];

export interface DiffInput {
  account: string;
  resource: Resource;
  windowStart: number;
  /** The range the window's pages covered, epoch seconds [from, to): sessions outside belong to a neighbour. */
  from: number;
  to: number;
  /** What the pages returned, normalized. */
  returned: readonly NormalizedSession[];
  /** The stored sessions of the account created in [from, to) (typed, every column but raw). */
  stored: readonly Readonly<Record<string, unknown>>[];
  /** Every page of the window was fetched: only then can a stored session be "no longer returned". */
  complete: boolean;
  /**
   * When the first page was asked for (ISO); a stored session seen since then (a webhook) was not missed by the pages.
   */
  pagedSince: string;
}

export interface WindowDiff {
  findings: VerifyFinding[];
  /** Sessions compared: returned in range, or stored in range when the pass was complete. */
  sessionsChecked: number;
  /** The fresh observations of the sessions found missing locally or changed: what a repair merges. */
  drifted: NormalizedSession[];
  /** Ids found changed: a repair rewrites them even where the item text is the one stored. */
  changed: Set<string>;
  /** Ids stored but no longer returned by the complete pass. */
  notReturned: string[];
}

/** A stored or returned value as verify_findings holds it: text, booleans as true/false, null as null. */
export function findingValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : String(value);
}

function observation(row: Readonly<Record<string, unknown>>): Observation {
  return {
    update_counter: (row.update_counter as number | null | undefined) ?? null,
    last_updated_at: (row.last_updated_at as string | null | undefined) ?? null,
    last_synced_at: String(row.last_synced_at),
  };
}

/**
 * Compares what the service returned for one window with what the target
 * stores for it. A session is compared only when the returned observation
 * would win the merge (merge-rule.ts): a stored row that is newer (a webhook
 * with a higher update_counter, a later v2 last_updated_at) is not drift.
 */
export function diffWindow(input: DiffInput): WindowDiff {
  const returned = new Map<string, NormalizedSession>();
  for (const s of input.returned) {
    const epoch = s.row.created_epoch;
    if (epoch !== null && epoch >= input.from && epoch < input.to) returned.set(s.row.service_id, s);
  }
  const stored = new Map(input.stored.map((row) => [String(row.service_id), row]));
  const out: WindowDiff = { findings: [], sessionsChecked: 0, drifted: [], changed: new Set(), notReturned: [] };
  const base = { account: input.account, resource: input.resource, windowStart: input.windowStart };
  for (const [id, session] of returned) {
    out.sessionsChecked++;
    const row = stored.get(id);
    if (row === undefined) {
      out.findings.push({
        ...base,
        serviceId: id,
        kind: 'missing_locally',
        column: null,
        storedValue: null,
        serviceValue: null,
      });
      out.drifted.push(session);
      continue;
    }
    const fresh: Readonly<Record<string, unknown>> = { ...session.row };
    if (!isNewer(observation(row), observation(fresh))) continue;
    if (row.missing_since !== null && row.missing_since !== undefined) {
      out.findings.push({
        ...base,
        serviceId: id,
        kind: 'missing_locally',
        column: 'missing_since',
        storedValue: findingValue(row.missing_since),
        serviceValue: null,
      });
      out.drifted.push(session);
      continue;
    }
    const columns =
      row.api_version === session.row.api_version ? VERIFIED_COLUMNS[input.resource] : CROSS_INTERFACE_COLUMNS;
    let differs = false;
    for (const column of columns) {
      if (!(column in fresh) || session.preserve.includes(column)) continue;
      const was = findingValue(row[column]);
      const now = findingValue(fresh[column]);
      if (was === now) continue;
      differs = true;
      out.findings.push({ ...base, serviceId: id, kind: 'changed', column, storedValue: was, serviceValue: now });
    }
    if (differs) {
      out.drifted.push(session);
      out.changed.add(id);
    }
  }
  if (!input.complete) return out;
  for (const [id, row] of stored) {
    if (returned.has(id) || (row.missing_since !== null && row.missing_since !== undefined)) continue;
    out.sessionsChecked++;
    if (String(row.last_synced_at) >= input.pagedSince) continue;
    out.findings.push({
      ...base,
      serviceId: id,
      kind: 'not_returned',
      column: null,
      storedValue: null,
      serviceValue: null,
    });
    out.notReturned.push(id);
  }
  return out;
}
