import type { Resource } from '../../normalize/rows.js';
import { isoFromMicros, microsFromIso } from '../../normalize/time.js';

/** The values of a session whose change makes a new version in session_history. */
export type TrackedValues = {
  result_id: string | null;
  result_final: boolean | null;
  flag: string | null;
  missing_since: string | null;
  update_counter: number | null;
};

/** What observed a version: a session row's source, or `verify` for `verify --repair`. */
export type HistorySource = 'search' | 'lookup' | 'get' | 'webhook' | 'verify';

/** One version as a merge or a missing mark decides it; valid_from may still move (see chainVersions). */
export type HistoryVersion = TrackedValues & {
  account: string;
  valid_from: string;
  source: HistorySource;
  api_version: string;
};

/** A row of session_history (a type, not an interface, so that it is a Row the drivers write). */
export type HistoryRow = HistoryVersion & {
  service_id: string;
  resource: Resource;
  valid_to: string | null;
};

/** A session_history row as readRow types it. */
export function historyRowOf(r: Readonly<Record<string, unknown>>): HistoryRow {
  return {
    ...trackedOf(r),
    service_id: r.service_id as string,
    resource: r.resource as Resource,
    account: r.account as string,
    valid_from: r.valid_from as string,
    valid_to: (r.valid_to as string | null | undefined) ?? null,
    source: r.source as HistorySource,
    api_version: r.api_version as string,
  };
}

/** What a session row says of the version session_history shows for it while session_versions holds none. */
export type RowVersionSource = TrackedValues & {
  account: string;
  created_at: string | null;
  first_seen_at: string;
  source: HistorySource;
  api_version: string;
};

/** What a session row (as readRow types it, or as a merge writes it) says of its version (rowVersion). */
export function rowSourceOf(r: Readonly<Partial<Record<keyof RowVersionSource, unknown>>>): RowVersionSource {
  return {
    ...trackedOf(r),
    account: r.account as string,
    created_at: (r.created_at as string | null | undefined) ?? null,
    first_seen_at: r.first_seen_at as string,
    source: r.source as HistorySource,
    api_version: r.api_version as string,
  };
}

/**
 * The version session_history shows for a session with no row in
 * session_versions: the session row's values, from its creation (else from
 * when ivsync first stored it), current. The view's second part says the
 * same in SQL (migrations/20261126500000_history_implicit_first.ts).
 */
export function rowVersion(key: { resource: Resource; serviceId: string }, row: RowVersionSource): HistoryRow {
  return {
    ...trackedOf(row),
    service_id: key.serviceId,
    resource: key.resource,
    account: row.account,
    valid_from: row.created_at ?? row.first_seen_at,
    valid_to: null,
    source: row.source,
    api_version: row.api_version,
  };
}

/** Whether two rows are the same version: the same values, start and end, observed the same way. */
export function sameVersion(a: HistoryRow, b: HistoryRow): boolean {
  return (
    sameTracked(a, b) &&
    a.service_id === b.service_id &&
    a.resource === b.resource &&
    a.account === b.account &&
    a.valid_from === b.valid_from &&
    a.valid_to === b.valid_to &&
    a.source === b.source &&
    a.api_version === b.api_version
  );
}

/**
 * The new versions of one session decided in one transaction, oldest first,
 * with what its row said before the transaction (null when it held none) and
 * says after it (null when the transaction does not write the row): while
 * session_versions holds nothing of a session, its one version is its row's.
 */
export interface SessionVersions {
  resource: Resource;
  serviceId: string;
  versions: HistoryVersion[];
  before: RowVersionSource | null;
  after: RowVersionSource | null;
}

export function trackedOf(row: Readonly<Partial<Record<keyof TrackedValues, unknown>>>): TrackedValues {
  return {
    result_id: (row.result_id as string | null | undefined) ?? null,
    result_final: (row.result_final as boolean | null | undefined) ?? null,
    flag: (row.flag as string | null | undefined) ?? null,
    missing_since: (row.missing_since as string | null | undefined) ?? null,
    update_counter: (row.update_counter as number | null | undefined) ?? null,
  };
}

export function sameTracked(a: TrackedValues, b: TrackedValues): boolean {
  return (
    a.result_id === b.result_id &&
    a.result_final === b.result_final &&
    a.flag === b.flag &&
    a.missing_since === b.missing_since &&
    a.update_counter === b.update_counter
  );
}

/** The observation a version comes from: the service's change time when it gives one, and when ivsync saw it. */
export interface VersionTimes {
  created_at: string | null;
  last_updated_at: string | null;
  last_synced_at: string;
}

/**
 * When a version begins. A session's first version starts at its creation
 * (a backfill sees it long after). A change of missing_since alone is
 * ivsync's own finding, dated by the observation; any other change by the
 * service's change time (v2 last_updated_at) where it gives one, else by the
 * observation that saw it.
 */
export function versionStart(previous: TrackedValues | null, next: TrackedValues, at: VersionTimes): string {
  if (previous === null) return at.created_at ?? at.last_updated_at ?? at.last_synced_at;
  if (sameTracked({ ...previous, missing_since: next.missing_since }, next)) return at.last_synced_at;
  return at.last_updated_at ?? at.last_synced_at;
}

/** `iso`, or a microsecond after `previous` when it is not later: versions of a session never share a start. */
export function laterThan(iso: string, previous: string): string {
  if (iso > previous) return iso;
  const micros = microsFromIso(previous);
  if (micros === null) throw new Error(`session_history: valid_from ${previous} is not an ISO time`);
  return isoFromMicros(micros + 1);
}

/**
 * The rows one session's new versions make: the current stored version (if
 * any) closed at the first new start, then each new version closed by the
 * next, the last one current. A version that repeats the one before it is
 * left out, and starts only move forward, so the versions stay in order.
 */
export function chainVersions(
  key: { resource: Resource; serviceId: string },
  current: HistoryRow | null,
  versions: readonly HistoryVersion[],
): { closed: HistoryRow | null; added: HistoryRow[] } {
  const added: HistoryRow[] = [];
  let previous: HistoryRow | null = current;
  let closed: HistoryRow | null = null;
  for (const version of versions) {
    if (previous !== null && sameTracked(previous, version)) continue;
    const validFrom = previous === null ? version.valid_from : laterThan(version.valid_from, previous.valid_from);
    const row: HistoryRow = {
      ...version,
      service_id: key.serviceId,
      resource: key.resource,
      valid_from: validFrom,
      valid_to: null,
    };
    if (previous !== null) {
      if (previous === current) closed = { ...current, valid_to: validFrom };
      else previous.valid_to = validFrom;
    }
    added.push(row);
    previous = row;
  }
  return { closed, added };
}
