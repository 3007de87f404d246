import type { ChildKind, MergePlan } from './merge-plan.js';
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

/**
 * Ids among `fresh` (sessions just inserted) that still have child rows:
 * children are keyed by service_id alone, so a session stored under the
 * other resource, or a row deleted by hand, may have left some. One query,
 * which finds nothing in every ordinary run.
 */
export async function orphanChildren(
  tx: SqlExecutor,
  plan: MergePlan,
  fresh: ReadonlySet<string>,
): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const kind of CHILD_KINDS)
    for (const r of plan.children[kind].rows) if (fresh.has(r.service_id)) ids.add(r.service_id);
  if (ids.size === 0) return ids;
  const maybe = tx.mayHold ? await tx.mayHold('children', [...ids]) : [...ids];
  if (maybe.length === 0) return new Set();
  const query = orphanChildrenQuery(tx, maybe);
  const found = await tx.all(query.sql, query.params);
  return new Set(found.map((r) => String(r.service_id)));
}
