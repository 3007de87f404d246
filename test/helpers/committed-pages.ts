import Database from 'better-sqlite3';
import type { ServedPage } from '../../src/simulator/index.js';

/** A page's request, as the simulator saw it: route, range and cursor. */
export function pageKey(p: Pick<ServedPage, 'route' | 'range' | 'cursor'>): string {
  return `${p.route}|${JSON.stringify(p.range)}|${JSON.stringify(p.cursor)}`;
}

interface WindowRow {
  resource: string;
  window_start: number;
  window_end: number;
  status: string;
  cursor: string | null;
  pass_from: number | null;
  pass_to: number | null;
}

/** The checkpoints of a SQLite target as a killed process left them (none when it made no file yet). */
export function readCheckpoints(path: string): WindowRow[] {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true });
  } catch {
    return [];
  }
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE name = 'sync_windows'").all();
    if (tables.length === 0) return [];
    return db
      .prepare('SELECT resource, window_start, window_end, status, cursor, pass_from, pass_to FROM sync_windows')
      .all() as WindowRow[];
  } finally {
    db.close();
  }
}

/**
 * The served pages that had surely committed, given the checkpoints read
 * after a kill: a page whose next page was asked for (a crawl asks for it only
 * after the commit), a page whose next cursor is a window's checkpoint, and
 * the last page of a pass whose oldest window is done. Pages come newest
 * first, so only the last page completes the window the pass ends in; the
 * windows above it complete on earlier pages, so one of them done says
 * nothing of the last. Keys as pageKey.
 */
export function committedPages(served: readonly ServedPage[], windows: readonly WindowRow[]): Set<string> {
  const requested = new Set(served.map(pageKey));
  const cursors = new Set<string>();
  const done = new Set<string>();
  for (const w of windows) {
    // The checkpoint holds the cursor as text, or as its JSON text.
    if (w.cursor !== null) cursors.add(w.cursor);
    const { pass_from: from, pass_to: to } = w;
    if (w.status !== 'done' || from === null || to === null) continue;
    // The window the pass ends in: the one holding its start.
    if (w.window_start <= from && from < w.window_end)
      done.add(`${w.resource}|${JSON.stringify({ start: Math.floor(from) - 1, end: Math.ceil(to) })}`);
  }
  const committed = new Set<string>();
  for (const p of served) {
    const resource = p.route.slice(p.route.lastIndexOf('/') + 1);
    const next = p.nextCursor;
    const sure =
      next === null
        ? done.has(`${resource}|${JSON.stringify(p.range)}`)
        : requested.has(pageKey({ ...p, cursor: next })) ||
          cursors.has(typeof next === 'string' ? next : JSON.stringify(next)) ||
          cursors.has(JSON.stringify(next));
    if (sure) committed.add(pageKey(p));
  }
  return committed;
}
