import type { Resource } from '../../normalize/rows.js';
import {
  chainVersions,
  historyRowOf,
  rowSourceOf,
  rowVersion,
  sameTracked,
  sameVersion,
  trackedOf,
  type HistoryRow,
  type HistorySource,
  type HistoryVersion,
  type RowVersionSource,
  type SessionVersions,
} from './history-version.js';
import { readRow } from '../row-reader.js';
import { table } from '../../schema/schema.js';
import { RESOURCES, sessionTable } from '../../schema/session-table.js';
import { unionAll, type Row, type SqlExecutor } from '../drivers/sql-driver.js';

const VERSIONS = table('session_versions');
const COLUMNS = VERSIONS.columns.map((c) => c.name).join(', ');

/**
 * Writes sessions' new versions inside the caller's transaction, the one that
 * writes their rows. session_history is a view: the rows of session_versions,
 * and for each session with none there, the one version its row describes
 * (rowVersion). So a session that never changed costs no row; its first
 * change writes that version closed, then the new ones. A session whose row
 * would describe a different version without a change of tracked values (a
 * rewrite by another interface, source or account) gets its version written
 * first, so that what the view showed stays what it shows.
 *
 * Three statements at most per resource, whatever the number of sessions:
 * the sessions' current versions are read, deleted and written again closed,
 * along with the new ones (a DELETE and an append rather than an UPDATE per
 * session: DuckDB keeps this table without an index, see duckdb-keyless.ts).
 */
export async function writeVersions(tx: SqlExecutor, sessions: readonly SessionVersions[]): Promise<void> {
  if (sessions.length === 0) return;
  const rows: Row[] = [];
  // New sessions too: a row deleted by hand, or stored under the other resource, leaves its versions.
  const currents = await currentVersions(tx, sessions);
  for (const resource of RESOURCES) {
    const own = sessions.filter((s) => s.resource === resource);
    if (own.length === 0) continue;
    const current = currents[resource];
    const replaced: string[] = [];
    for (const s of own) {
      const stored = current.get(s.serviceId) ?? null;
      // A new session whose one version is the one its row tells: nothing to write (most of a backfill).
      if (stored === null && s.before === null && s.after !== null && s.versions.length === 1) {
        if (toldByRow(s.versions[0]!, s.after)) continue;
      }
      const key = { resource, serviceId: s.serviceId };
      if (stored !== null) {
        const { closed, added } = chainVersions(key, stored, s.versions);
        if (closed !== null) {
          replaced.push(s.serviceId);
          rows.push(closed);
        }
        rows.push(...added);
        continue;
      }
      // The version the view shows now: the stored row's, or none for a session first stored here.
      const shown = s.before === null ? null : rowVersion(key, s.before);
      const { closed, added } = chainVersions(key, shown, s.versions);
      const after = s.after === null ? null : rowVersion(key, s.after);
      if (closed !== null) {
        rows.push(closed, ...added);
        continue;
      }
      // No change to a stored session: its row keeps telling its version unless the rewrite would alter it.
      if (shown !== null) {
        if (after !== null && !sameVersion(shown, after)) rows.push(shown);
        continue;
      }
      // A new session: nothing to write while its row alone tells the one version it has.
      const only = added.length === 1 ? added[0]! : null;
      if (only !== null && after !== null && sameVersion(only, after)) continue;
      rows.push(...added);
    }
    if (replaced.length > 0) {
      const list = tx.whereIn('service_id', replaced);
      await tx.run(`DELETE FROM session_versions WHERE resource = ? AND valid_to IS NULL AND ${list.sql}`, [
        resource,
        ...list.params,
      ]);
    }
  }
  // Every row's key is new: a closed row was deleted above, and a new start is later than its session's last.
  if (rows.length > 0) await tx.write(VERSIONS, rows, 'fail');
}

/**
 * Whether `version`, a session's first, is the one session_history shows from its row alone (rowVersion): the
 * same values, start, source and interface. What chainVersions and sameVersion would find, without their rows.
 */
function toldByRow(version: HistoryVersion, row: RowVersionSource): boolean {
  return (
    sameTracked(version, row) &&
    version.account === row.account &&
    version.valid_from === (row.created_at ?? row.first_seen_at) &&
    version.source === row.source &&
    version.api_version === row.api_version
  );
}

/**
 * The current versions of `sessions`, per resource: one statement for both
 * (a round trip less a commit), each resource's ids those the target may hold.
 */
async function currentVersions(
  tx: SqlExecutor,
  sessions: readonly SessionVersions[],
): Promise<Record<Resource, Map<string, HistoryRow>>> {
  const found = { authentications: new Map<string, HistoryRow>(), fingerprints: new Map<string, HistoryRow>() };
  const parts: { sql: string; params: unknown[] }[] = [];
  for (const resource of RESOURCES) {
    const ids = sessions.filter((s) => s.resource === resource).map((s) => s.serviceId);
    if (ids.length === 0) continue;
    // DuckDB's session_versions has no index: a read of it is a scan, skipped when none of the ids can have a row.
    const maybe = tx.mayHold ? await tx.mayHold('versions', ids) : ids;
    if (maybe.length === 0) continue;
    const list = tx.whereIn('service_id', maybe);
    parts.push({
      sql: `SELECT ${COLUMNS} FROM session_versions WHERE resource = ? AND valid_to IS NULL AND ${list.sql}`,
      params: [resource, ...list.params],
    });
  }
  if (parts.length === 0) return found;
  const union = unionAll(parts);
  const rows = await tx.all(union.sql, union.params);
  for (const raw of rows) {
    const row = historyRowOf(readRow(VERSIONS, raw));
    found[row.resource]?.set(row.service_id, row);
  }
  return found;
}

/**
 * Sets `missing_since = now` on the sessions of `resource` that `where` (SQL
 * over the session table, with `params`) selects, and versions each of them
 * in session_history, in the caller's transaction. The sessions are found
 * first (the same scan the UPDATE would make, and usually no row), then
 * locked and read again under `where`, so that a merge committed meanwhile
 * (one that saw the session, maybe under another account) is not undone and
 * each one's version carries its values. Returns how many were marked.
 */
export async function markMissingWhere(
  tx: SqlExecutor,
  mark: { resource: Resource; where: string; params: readonly unknown[]; now: string; source: HistorySource },
): Promise<number> {
  const def = sessionTable(mark.resource);
  const where = `missing_since IS NULL AND (${mark.where})`;
  const candidates = await tx.all(`SELECT service_id FROM ${def.name} WHERE ${where}`, mark.params);
  if (candidates.length === 0) return 0;
  const ids = candidates.map((r) => String(r.service_id));
  await tx.lock({ session: ids });
  const locked = tx.whereIn('service_id', ids);
  const found = await tx.all(
    `SELECT service_id, account, api_version, result_id, result_final, flag, update_counter, created_at,
       first_seen_at, source
     FROM ${def.name} WHERE ${where} AND ${locked.sql}`,
    [...mark.params, ...locked.params],
  );
  if (found.length === 0) return 0;
  const sessions: SessionVersions[] = found.map((raw) => {
    const r = readRow(def, raw);
    return {
      resource: mark.resource,
      serviceId: r.service_id as string,
      versions: [
        {
          ...trackedOf(r),
          missing_since: mark.now,
          account: r.account as string,
          valid_from: mark.now,
          source: mark.source,
          api_version: r.api_version as string,
        },
      ],
      before: rowSourceOf(r),
      after: null,
    };
  });
  const list = tx.whereIn(
    'service_id',
    sessions.map((s) => s.serviceId),
  );
  const marked = await tx.run(`UPDATE ${def.name} SET missing_since = ? WHERE missing_since IS NULL AND ${list.sql}`, [
    mark.now,
    ...list.params,
  ]);
  await writeVersions(tx, sessions);
  return marked;
}
