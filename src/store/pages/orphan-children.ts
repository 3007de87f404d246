import type { Resource } from '../../normalize/rows.js';
import { otherResource, RESOURCES, sessionTable } from '../../schema/session-table.js';
import type { ChildKind } from './merge-plan.js';
import type { SqlExecutor } from '../drivers/sql-driver.js';

export const CHILD_KINDS: readonly ChildKind[] = ['session_text_fields', 'session_images', 'session_warnings'];

/**
 * The query for the ids among `ids` that have rows in any child table. Each
 * table gets its own `whereIn` rather than one shared list (a CTE): the
 * condition is what each dialect words for its index, and PostgreSQL plans a
 * join against a CTE as a scan of the whole table, every commit, growing with
 * the target.
 */
export function orphanChildrenQuery(tx: SqlExecutor, ids: readonly string[]): { sql: string; params: unknown[] } {
  const parts = CHILD_KINDS.map((kind) => {
    const list = tx.whereIn('service_id', ids);
    return { sql: `SELECT service_id FROM ${kind} WHERE ${list.sql}`, params: list.params };
  });
  return { sql: parts.map((p) => p.sql).join(' UNION '), params: parts.flatMap((p) => p.params) };
}

/** New sessions whose ids already have child rows (orphanChildren). */
export interface Orphans {
  /** Ids the other session table holds too: the kinds of child rows the new session brings replace theirs. */
  shared: Set<string>;
  /** Ids no other session row holds (a hand deleted it): all their child rows go. */
  unheld: Set<string>;
}

/**
 * Of `fresh` (sessions just inserted, each id with its resource), those
 * whose ids still have child rows, on a target without the session tables'
 * triggers (session-triggers.ts: DuckDB): children are keyed by service_id
 * alone, so a session stored under the other resource, or a row deleted by
 * hand, may have left some. One query of the child tables, which finds
 * nothing in every ordinary run; a second, of the other session tables,
 * only for the ids it found.
 */
export async function orphanChildren(tx: SqlExecutor, fresh: ReadonlyMap<string, Resource>): Promise<Orphans> {
  const orphans: Orphans = { shared: new Set(), unheld: new Set() };
  if (fresh.size === 0) return orphans;
  const maybe = tx.mayHold ? await tx.mayHold('children', [...fresh.keys()]) : [...fresh.keys()];
  if (maybe.length === 0) return orphans;
  const query = orphanChildrenQuery(tx, maybe);
  const found = (await tx.all(query.sql, query.params)).map((r) => String(r.service_id));
  for (const resource of RESOURCES) {
    const ids = found.filter((id) => fresh.get(id) === resource);
    if (ids.length === 0) continue;
    // The session rows were written before: the other table's is what tells a shared id from a deleted one.
    const other = sessionTable(otherResource(resource)).name;
    const list = tx.whereIn('service_id', ids);
    const rows = await tx.all(`SELECT service_id FROM ${other} WHERE ${list.sql}`, list.params);
    const held = new Set(rows.map((r) => String(r.service_id)));
    for (const id of ids) (held.has(id) ? orphans.shared : orphans.unheld).add(id);
  }
  return orphans;
}
