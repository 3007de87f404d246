import { RESOURCES as RESOURCE_NAMES, type ResourceName } from './resources.js';
import { table, type TableDef } from './schema.js';

export const RESOURCES: readonly ResourceName[] = RESOURCE_NAMES;

/** The table of a resource's sessions; its name reaches SQL text, so anything else is refused. */
export function sessionTable(resource: ResourceName): TableDef {
  if (!RESOURCES.includes(resource)) throw new Error(`unknown resource ${String(resource)}`);
  return table(resource);
}

/** The other resource's name: children are keyed by service_id alone, whichever of the two tables holds it. */
export function otherResource(resource: ResourceName): ResourceName {
  return resource === 'authentications' ? 'fingerprints' : 'authentications';
}

/**
 * The condition of a session whose result is not final, on a session table's
 * `result_final` (`column`, qualified when the query joins). Written as an
 * equality rather than `NOT result_final`, which SQLite cannot match to an
 * index: with `missing_since IS NULL` beside it, it is the condition of the
 * session tables' partial index of their non-final sessions (session-tables.ts),
 * which SQLite uses only for a query that spells it the same. At 10M sessions,
 * counting an account's non-final authentications by reading every row of the
 * account took 31.9 s from a cold cache and 7.4 s from a warm one; through an
 * index of `result_final`, 1.6 s (docs/benchmarks.md). The same rows on every
 * target: NULL is neither.
 */
export function nonFinal(column = 'result_final'): string {
  return `${column} = FALSE`;
}
