import type { NormalizedBatch, NormalizedSession, RejectedRow, Resource } from '../../normalize/rows.js';
import { writeVersions } from '../history/history-store.js';
import type { HistorySource } from '../history/history-version.js';
import {
  planMerge,
  type MergeOptions,
  type MergePlan,
  type SessionOutcome,
  type StoredSession,
  type StoredSessions,
} from './merge-plan.js';
import { observedChange } from './change-lag.js';
import { readRow } from '../row-reader.js';
import { table } from '../../schema/schema.js';
import { otherResource, RESOURCES, sessionTable } from '../../schema/session-table.js';
import {
  selectWhereIn,
  unionAll,
  updateWhereIn,
  type Row,
  type SqlDriver,
  type SqlExecutor,
} from '../drivers/sql-driver.js';
import { uniqueByKey } from './unique-by-key.js';
import { CHILD_KINDS, orphanChildren } from './orphan-children.js';

const CHANGE_LAGS = table('change_lags');

/** Stored columns the merge rule and the content comparison read. */
const DECIDING = [
  'service_id',
  'account',
  'update_counter',
  'last_updated_at',
  'last_synced_at',
  'first_seen_at',
  'missing_since',
  'raw',
  'api_version',
  // With update_counter and missing_since, what a version in session_history is decided on.
  'result_id',
  'result_final',
  'flag',
  // What the version session_history shows from the row alone says (history-version.ts rowVersion).
  'created_at',
  'source',
];

export interface MergeOutcome {
  /** One per incoming session, in input order. */
  outcomes: SessionOutcome[];
  /** The update_counter each incoming session had in the target before this merge; absent when it held no row. */
  previousCounters: Record<Resource, Map<string, number | null>>;
}

/**
 * Merges sessions into the session tables inside the caller's transaction:
 * locks them, reads what is stored for them, decides with the pure merge plan
 * (newer never loses), and writes rows, seen marks, child rows and the
 * sessions' new versions in session_history in bulk.
 */
export async function mergeSessions(
  tx: SqlExecutor,
  sessions: readonly NormalizedSession[],
  options: MergeOptions = {},
): Promise<MergeOutcome> {
  const previousCounters: MergeOutcome['previousCounters'] = { authentications: new Map(), fingerprints: new Map() };
  if (sessions.length === 0) return { outcomes: [], previousCounters };
  // Before the read: another account's token may see the same sessions, and its merge waits until this one ends.
  await tx.lock({ session: sessions.map((s) => s.row.service_id) });
  const { sessions: stored, heldElsewhere } = await readStored(tx, sessions);
  for (const resource of RESOURCES)
    for (const [id, s] of stored[resource]) previousCounters[resource].set(id, s.update_counter);
  const plan = planMerge(sessions, stored, options);
  await apply(tx, plan, stored, heldElsewhere);
  await writeChanges(tx, sessions, plan.outcomes, stored);
  return { outcomes: plan.outcomes, previousCounters };
}

/** The observed lag of every dated change the merge stored (change_lags), in its transaction: kept once per change. */
async function writeChanges(
  tx: SqlExecutor,
  sessions: readonly NormalizedSession[],
  outcomes: readonly SessionOutcome[],
  stored: StoredSessions,
): Promise<void> {
  const rows: Row[] = [];
  sessions.forEach((session, i) => {
    const id = session.row.service_id;
    const change = observedChange(outcomes[i]!, session, stored[session.resource].get(id)?.last_updated_at);
    if (change === null) return;
    const { account, source } = session.row;
    const { changedAt, storedAt, lagSeconds } = change;
    rows.push({
      resource: session.resource,
      service_id: id,
      changed_at: changedAt,
      account,
      stored_at: storedAt,
      lag_seconds: lagSeconds,
      source,
    });
  });
  if (rows.length > 0) await tx.write(CHANGE_LAGS, uniqueByKey(CHANGE_LAGS, rows), 'ignore');
}

/** Keeps items that could not be normalized aside, inside the caller's transaction. */
export async function writeRejected(tx: SqlExecutor, rows: readonly RejectedRow[]): Promise<void> {
  if (rows.length === 0) return;
  const def = table('rejected_items');
  await tx.write(def, uniqueByKey(def, rows), 'replace');
}

/** Thrown to roll a probe back. */
const PROBED = Symbol('probed');

/**
 * Writes a batch's sessions and rejected items as a commit would, then rolls
 * the transaction back: resolves when the target took every row, rejects
 * with its error when it refused one (see refused-items.ts).
 */
export async function probeBatch(driver: SqlDriver, batch: NormalizedBatch): Promise<void> {
  try {
    await driver.transaction(async (tx) => {
      await mergeSessions(tx, batch.sessions);
      await writeRejected(tx, batch.rejected);
      throw PROBED;
    });
  } catch (error) {
    if (error !== PROBED) throw error;
  }
}

/** Counts of a run of outcomes, as a commit reports them. */
export function countOutcomes(outcomes: readonly SessionOutcome[]): {
  written: number;
  unchanged: number;
  stale: number;
} {
  let written = 0;
  let unchanged = 0;
  let stale = 0;
  for (const o of outcomes) {
    if (o === 'stale') stale++;
    else if (o === 'unchanged') unchanged++;
    else written++;
  }
  return { written, unchanged, stale };
}

/** What the read of one resource's stored sessions asks for. */
interface StoredRead {
  resource: Resource;
  /** Of the incoming sessions' ids, those the target may hold. */
  ids: string[];
  /** The columns some incoming session preserves beyond DECIDING. */
  extra: string[];
  /** The columns (and child tables) some incoming session of the resource preserves. */
  preserve: ReadonlySet<string>;
}

/** What a commit reads of the target before it decides. */
interface StoredState {
  sessions: StoredSessions;
  /**
   * Of each resource's incoming ids, those the other session table holds;
   * null where the target cannot say from its session tables alone which
   * ids have child rows (SqlExecutor.childrenFollowSessions).
   */
  heldElsewhere: Record<Resource, Set<string>> | null;
}

/**
 * The stored rows of the incoming sessions, both resources in one statement
 * where the dialect reads by a list of ids: a round trip less a commit, and a
 * Postgres commit waits some milliseconds for each, its process busy with the
 * pages. Each part lists the columns either resource preserves, NULL where
 * its table has none of that name. Where child rows follow their sessions,
 * the same statement says which incoming ids the other session table holds:
 * the only new sessions whose ids may have child rows already.
 */
async function readStored(tx: SqlExecutor, sessions: readonly NormalizedSession[]): Promise<StoredState> {
  const stored = { authentications: new Map<string, StoredSession>(), fingerprints: new Map<string, StoredSession>() };
  const follow = tx.childrenFollowSessions === true && !tx.selectIn;
  const heldElsewhere = follow ? { authentications: new Set<string>(), fingerprints: new Set<string>() } : null;
  const reads: StoredRead[] = [];
  for (const resource of RESOURCES) {
    const read = await storedRead(tx, resource, sessions);
    if (read !== null) reads.push(read);
  }
  if (reads.length === 0) return { sessions: stored, heldElsewhere };
  if ((reads.length > 1 || follow) && !tx.selectIn) {
    const extra = [...new Set(reads.flatMap((read) => read.extra))];
    const names = [...DECIDING, ...extra];
    const parts = reads.map((read) => {
      const def = sessionTable(read.resource);
      const list = tx.whereIn('service_id', read.ids);
      const has = new Set(def.columns.map((c) => c.name));
      const columns = names.map((c) => (has.has(c) ? c : `NULL AS ${c}`));
      // The resource is a name of RESOURCES, and the columns the tables' own: not inputs.
      const select = `SELECT '${read.resource}' AS stored_in, ${columns.join(', ')}`;
      return { sql: `${select} FROM ${def.name} WHERE ${list.sql}`, params: list.params };
    });
    if (follow)
      for (const read of reads) {
        const list = tx.whereIn('service_id', read.ids);
        const nulls = names.map((c) => (c === 'service_id' ? c : `NULL AS ${c}`));
        const select = `SELECT '${read.resource} elsewhere' AS stored_in, ${nulls.join(', ')}`;
        parts.push({
          sql: `${select} FROM ${sessionTable(otherResource(read.resource)).name} WHERE ${list.sql}`,
          params: list.params,
        });
      }
    const union = unionAll(parts);
    const rows = await tx.all(union.sql, union.params);
    for (const read of reads) {
      addStored(
        stored[read.resource],
        read,
        rows.filter((row) => row.stored_in === read.resource),
      );
      const elsewhere = `${read.resource} elsewhere`;
      for (const row of rows)
        if (row.stored_in === elsewhere) heldElsewhere?.[read.resource].add(String(row.service_id));
    }
    return { sessions: stored, heldElsewhere };
  }
  for (const read of reads) {
    const columns = [...DECIDING, ...read.extra];
    const rows = await selectWhereIn(tx, sessionTable(read.resource).name, columns, 'service_id', read.ids);
    addStored(stored[read.resource], read, rows);
  }
  return { sessions: stored, heldElsewhere };
}

/** The read of `resource`'s stored sessions, or null when none of the incoming ones can be stored. */
async function storedRead(
  tx: SqlExecutor,
  resource: Resource,
  sessions: readonly NormalizedSession[],
): Promise<StoredRead | null> {
  const def = sessionTable(resource);
  const ids = new Set<string>();
  const preserve = new Set<string>();
  for (const s of sessions) {
    if (s.resource !== resource) continue;
    ids.add(s.row.service_id);
    for (const column of s.preserve) preserve.add(column);
  }
  if (ids.size === 0) return null;
  // The ids the target may hold, and of those the rows: a DuckDB target has no index on service_id
  // (duckdb-keyless.ts), and reads which ids it holds first, then the columns of those rows only.
  const maybe = tx.mayHold ? await tx.mayHold('sessions', [...ids]) : [...ids];
  if (maybe.length === 0) return null;
  // Only real columns: `preserve` may also name child tables, and names reach SQL text.
  const extra = def.columns.map((c) => c.name).filter((c) => preserve.has(c) && !DECIDING.includes(c));
  return { resource, ids: maybe, extra, preserve };
}

function addStored(
  stored: Map<string, StoredSession>,
  read: StoredRead,
  rows: readonly Record<string, unknown>[],
): void {
  const def = sessionTable(read.resource);
  const { preserve } = read;
  for (const raw of rows) {
    const r = readRow(def, raw);
    const preserved: Record<string, unknown> = {};
    for (const c of def.columns) if (preserve.has(c.name)) preserved[c.name] = r[c.name];
    stored.set(r.service_id as string, {
      account: r.account as string,
      result_id: r.result_id as string | null,
      result_final: r.result_final as boolean | null,
      flag: r.flag as string | null,
      created_at: r.created_at as string | null,
      source: r.source as HistorySource,
      update_counter: r.update_counter as number | null,
      last_updated_at: r.last_updated_at as string | null,
      last_synced_at: r.last_synced_at as string,
      first_seen_at: r.first_seen_at as string,
      missing_since: r.missing_since as string | null,
      raw: r.raw as string,
      api_version: r.api_version as string,
      preserved,
    });
  }
}

/**
 * Rows of sessions that were not stored are inserted without conflict
 * handling (the read that proved them absent ran in this transaction, under
 * their lock, which every writer of a session row takes), which is the fast
 * path of every dialect; only replaced sessions pay for the upsert.
 */
async function apply(
  tx: SqlExecutor,
  plan: MergePlan,
  stored: StoredSessions,
  heldElsewhere: StoredState['heldElsewhere'],
): Promise<void> {
  const fresh = new Map<string, Resource>();
  // New sessions whose ids the other session table holds, with its child rows.
  const shared = new Set<string>();
  for (const resource of RESOURCES) {
    const rows = plan.rows[resource];
    if (rows.length === 0) continue;
    const known = stored[resource];
    const inserted: Row[] = [];
    const replaced: Row[] = [];
    for (const row of rows) {
      const id = row.service_id as string;
      if (known.has(id)) replaced.push(row);
      else {
        inserted.push(row);
        fresh.set(id, resource);
        if (heldElsewhere?.[resource].has(id)) shared.add(id);
      }
    }
    if (inserted.length > 0) await tx.write(sessionTable(resource), inserted, 'fail');
    if (replaced.length > 0) await tx.write(sessionTable(resource), replaced, 'replace');
  }
  await markSeen(tx, plan.seen);
  await writeVersions(tx, plan.versions);
  const orphans = heldElsewhere === null ? await orphanChildren(tx, fresh) : { shared, unheld: new Set<string>() };
  for (const kind of CHILD_KINDS) {
    const { replaceStored, rows } = plan.children[kind];
    const replace = [...replaceStored, ...orphans.unheld];
    if (orphans.shared.size > 0)
      for (const id of new Set(rows.map((r) => r.service_id))) if (orphans.shared.has(id)) replace.push(id);
    if (replace.length > 0) {
      const list = tx.whereIn('service_id', replace);
      await tx.run(`DELETE FROM ${kind} WHERE ${list.sql}`, list.params);
    }
    // Every session these rows belong to has no child rows of this kind left.
    if (rows.length > 0) {
      const unique = plan.childKeysMayRepeat ? uniqueByKey(table(kind), rows) : rows;
      await tx.write(table(kind), unique, 'fail');
    }
  }
}

/** One UPDATE per resource and time for the sessions an observation saw but did not replace. */
async function markSeen(tx: SqlExecutor, seen: MergePlan['seen']): Promise<void> {
  const groups = new Map<string, { resource: Resource; lastSyncedAt: string; ids: string[] }>();
  for (const s of seen) {
    const key = `${s.resource}\u0000${s.lastSyncedAt}`;
    const group = groups.get(key) ?? { resource: s.resource, lastSyncedAt: s.lastSyncedAt, ids: [] };
    group.ids.push(s.serviceId);
    groups.set(key, group);
  }
  for (const { resource, lastSyncedAt, ids } of groups.values()) {
    const assignments = 'last_synced_at = ?, missing_since = NULL';
    await updateWhereIn(tx, sessionTable(resource).name, assignments, [lastSyncedAt], 'service_id', ids);
  }
}
