import { cursorText, type Cursor } from '../../api/cursor.js';
import type { Resource } from '../../normalize/rows.js';
import { RESOURCES, sessionTable } from '../../schema/session-table.js';
import { unionAll, type KeyColumn, type SqlExecutor } from '../drivers/sql-driver.js';
import { markMissingWhere } from '../history/history-store.js';
import { readRow } from '../row-reader.js';
import type { PageCommit, PassBegin, WindowKey } from '../sink.js';
import { describeKey, WINDOWS } from './window-store.js';

/** What a run of committed pages does to one window's checkpoint. */
export interface CheckpointAdvance {
  key: WindowKey;
  pages: number;
  items: number;
  /** The cursor of the run's last page. */
  cursor: Cursor | null;
  /** Whether the run's last page completed the pass. */
  done: boolean;
  now: string;
  /** Index, in the group, of the run's last page. */
  lastPage: number;
  /** The pass the run's first page begins, when it does (PageCommit.begin). */
  begin?: PassBegin;
}

/**
 * Folds a group commit's pages into one advance per window: consecutive pages
 * of a window add up (pages, items) and the last one sets cursor, time and
 * completion, exactly as committing them one by one would. A page that
 * completes a pass closes its window's run, so a later page of the same
 * window starts a new one, as does a page that begins a pass.
 */
export function checkpointAdvances(pages: readonly PageCommit[]): CheckpointAdvance[] {
  const out: CheckpointAdvance[] = [];
  const open = new Map<string, CheckpointAdvance>();
  for (const [index, page] of pages.entries()) {
    const id = `${page.key.account}\u0000${page.key.resource}\u0000${page.key.apiVersion}\u0000${page.key.windowStart}`;
    const items = page.batch.sessions.length + page.batch.rejected.length;
    let advance = open.get(id);
    // A page that begins a pass starts a run of its own: the window's counts start again with it.
    if (advance === undefined || page.begin !== undefined) {
      advance = { key: page.key, pages: 0, items: 0, cursor: null, done: false, now: page.now, lastPage: index };
      if (page.begin !== undefined) advance.begin = page.begin;
      out.push(advance);
      open.set(id, advance);
    }
    advance.pages += page.pages ?? 1;
    advance.items += items;
    advance.cursor = page.done ? null : page.nextCursor;
    advance.done = page.done;
    advance.now = page.now;
    advance.lastPage = index;
    if (page.done) open.delete(id);
  }
  return out;
}

/**
 * The checkpoints of a commit group, inside the caller's transaction, which
 * holds the windows' account locks (every write of a window takes its
 * account's): the windows read in one statement, each advance applied in
 * order to its row as advancing them one by one would, the rows written back
 * in one, and, for each completed pass, the sessions of its range it did not
 * see looked for in one statement and marked missing. Returns how many each
 * advance marked. A statement or two per window cost a Postgres commit of 62
 * pages of a sparse year some 120 round trips.
 */
export async function advanceCheckpoints(tx: SqlExecutor, advances: readonly CheckpointAdvance[]): Promise<number[]> {
  if (advances.length === 0) return [];
  const rows = await readWindowRows(
    tx,
    advances.map((a) => a.key),
  );
  const scans: MissingScan[] = [];
  for (const [index, advance] of advances.entries()) {
    const row = rows.get(keyId(advance.key));
    if (row === undefined) throw new Error(`commitPage: no window ${describeKey(advance.key)}`);
    const scan = applyAdvance(row, advance);
    if (scan !== null) scans.push({ ...scan, index });
  }
  await tx.write(WINDOWS, [...rows.values()], 'replace');
  return markUnseen(tx, scans, advances);
}

/** A sync_windows row as read (readRow), changed in place. */
type WindowRow = Record<string, unknown>;

/** The sessions of a completed pass's range not seen since it started. */
interface MissingScan extends UnseenRange {
  index: number;
}

const keyId = (key: WindowKey): string => JSON.stringify([key.account, key.resource, key.apiVersion, key.windowStart]);

/** The columns of a window's key, as a relation of keys takes them. */
const KEY_COLUMNS: readonly KeyColumn[] = [
  { name: 'account', type: 'text' },
  { name: 'resource', type: 'text' },
  { name: 'api_version', type: 'text' },
  { name: 'window_start', type: 'integer' },
];

/**
 * The rows of the windows, by keyId: one statement, the keys joined as one
 * relation, its text the same whatever the windows (a UNION ALL per account
 * and resource was a new text at every commit, parsed and planned anew).
 */
async function readWindowRows(tx: SqlExecutor, keys: readonly WindowKey[]): Promise<Map<string, WindowRow>> {
  const unique = new Map(keys.map((k) => [keyId(k), [k.account, k.resource, k.apiVersion, k.windowStart]]));
  const relation = tx.keyRelation(KEY_COLUMNS, [...unique.values()]);
  const on = KEY_COLUMNS.map((c) => `w.${c.name} = k.${c.name}`).join(' AND ');
  const found = await tx.all(`SELECT w.* FROM sync_windows w JOIN ${relation.sql} k ON ${on}`, relation.params);
  const rows = new Map<string, WindowRow>();
  for (const raw of found) {
    const row = readRow(WINDOWS, raw);
    rows.set(JSON.stringify([row.account, row.resource, row.api_version, row.window_start]), row);
  }
  return rows;
}

/**
 * One advance applied to its window's row, as its statements did: a page
 * that begins a pass records it and counts from it; a run that completes the
 * pass clears the cursor and sets synced_to to the pass's end, never back (a
 * refresh pages a part of a window whose earlier passes went further).
 * Returns the missing scan a completed pass asks for; none without a recorded
 * pass start, where nothing tells seen from unseen.
 */
function applyAdvance(row: WindowRow, advance: CheckpointAdvance): Omit<MissingScan, 'index'> | null {
  const { begin, key } = advance;
  if (begin !== undefined) {
    if (row.window_end !== begin.windowEnd)
      throw new Error(`commitPage: no window ${describeKey(key)} ending at ${begin.windowEnd}`);
    Object.assign(row, {
      status: 'running',
      pages: 0,
      items: 0,
      attempts: (row.attempts as number) + 1,
      error: null,
      pass_from: begin.passFrom,
      pass_to: begin.passTo,
      pass_started_at: begin.startedAt,
    });
  }
  row.pages = (row.pages as number) + advance.pages;
  row.items = (row.items as number) + advance.items;
  row.updated_at = advance.now;
  // JSON text, so that an array or object cursor is sent back as it came after a resume.
  row.cursor = advance.done ? null : cursorText(advance.cursor);
  if (!advance.done) return null;
  row.status = 'done';
  const windowStart = row.window_start as number;
  const windowEnd = row.window_end as number;
  // A pass over several windows requests a wider range: only this window's part of it is done.
  const from = Math.max((row.pass_from as number | null) ?? windowStart, windowStart);
  const to = Math.min((row.pass_to as number | null) ?? windowEnd, windowEnd);
  const syncedTo = row.synced_to as number | null;
  row.synced_to = syncedTo === null ? to : Math.max(syncedTo, to);
  const startedAt = row.pass_started_at as string | null;
  return startedAt === null ? null : { resource: key.resource, account: key.account, from, to, startedAt };
}

/** The columns of a completed pass's range as the unseen-session scan joins them. */
const SCAN_COLUMNS: readonly KeyColumn[] = [
  { name: 'scan', type: 'integer' },
  { name: 'account', type: 'text' },
  { name: 'range_from', type: 'integer' },
  { name: 'range_to', type: 'integer' },
  { name: 'started_at', type: 'timestamp' },
];

/** A completed pass's range of one resource, as the unseen-session scan asks about it. */
export interface UnseenRange {
  resource: Resource;
  account: string;
  from: number;
  to: number;
  /** When the pass began: a session of the range not seen since then went unseen. */
  startedAt: string;
}

/**
 * Which of `ranges` (by index) hold sessions that are not marked missing and
 * were not seen since their pass began: one statement for both resources, a
 * part for each, its ranges joined as one relation so that its text is the
 * same whatever the passes (a UNION ALL of an EXISTS per pass was a new text,
 * parsed and planned anew, at every commit: 60 of them took DuckDB 8–20 ms,
 * joined 1.6–6.5 ms, at 100,000 and at 3–5M sessions; and a statement per
 * resource was a round trip more a commit). `OFFSET 0` keeps PostgreSQL from
 * turning the EXISTS into a semi join, which it planned as a hash of every
 * stored session of the table (3–4 ms a statement at 70,000); as a subplan
 * each range is one probe of the (account, created_epoch) index (1 ms for 26
 * ranges).
 */
export function unseenRangesQuery(tx: SqlExecutor, ranges: readonly UnseenRange[]): { sql: string; params: unknown[] } {
  const parts = RESOURCES.flatMap((resource) => {
    const tuples = ranges.flatMap((r, i) =>
      r.resource === resource ? [[i, r.account, r.from, r.to, r.startedAt]] : [],
    );
    if (tuples.length === 0) return [];
    const keys = tx.keyRelation(SCAN_COLUMNS, tuples);
    return [
      {
        sql:
          `SELECT k.scan FROM ${keys.sql} k WHERE EXISTS (SELECT 1 FROM ${sessionTable(resource).name} s ` +
          'WHERE s.missing_since IS NULL AND s.account = k.account AND s.created_epoch >= k.range_from ' +
          'AND s.created_epoch < k.range_to AND s.last_synced_at < k.started_at LIMIT 1 OFFSET 0)',
        params: keys.params,
      },
    ];
  });
  const union = unionAll(parts);
  return { sql: `${union.sql} ORDER BY scan`, params: union.params };
}

/**
 * Marks what each completed pass did not see: one statement per resource asks
 * which of the ranges hold such sessions (most hold none, unseenRangesQuery),
 * and only those are marked, each by its own scan.
 */
async function markUnseen(
  tx: SqlExecutor,
  scans: readonly MissingScan[],
  advances: readonly CheckpointAdvance[],
): Promise<number[]> {
  const missing = advances.map(() => 0);
  if (scans.length === 0) return missing;
  const where = 'account = ? AND created_epoch >= ? AND created_epoch < ? AND last_synced_at < ?';
  const query = unseenRangesQuery(tx, scans);
  for (const row of await tx.all(query.sql, query.params)) {
    const s = scans[Number(row.scan)]!;
    missing[s.index]! += await markMissingWhere(tx, {
      resource: s.resource,
      where,
      params: [s.account, s.from, s.to, s.startedAt],
      now: advances[s.index]!.now,
      source: 'search',
    });
  }
  return missing;
}
