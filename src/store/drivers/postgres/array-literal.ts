/**
 * `values` as the text of a PostgreSQL array (`{"a","b"}`), to bind as one
 * parameter cast to an array type (`?::text[]`, `?::bigint[]`). Every
 * element is quoted, a double quote or backslash in it escaped, so any text
 * (`NULL`, braces, commas, spaces) stays the element it was.
 *
 * Why: pg turns a JavaScript array into that text itself, element by element
 * (its value conversion, then two regular-expression replaces, the result
 * grown by concatenation), and a commit binds its sessions' ids several
 * times (their locks, the reads of stored sessions, versions and orphan child
 * rows): in a backfill into Postgres that conversion allocated 1.2 KB an
 * item, a tenth of all the process allocated (docs/benchmarks.md, "Ids as
 * array text"). Ids need no escaping, and are joined in one call.
 */
export function arrayLiteral(values: readonly (string | number)[]): string {
  if (values.length === 0) return '{}';
  let plain = true;
  for (const value of values) {
    if (typeof value === 'string' && (value.includes('"') || value.includes('\\'))) {
      plain = false;
      break;
    }
  }
  const elements = plain ? values : values.map((v) => (typeof v === 'string' ? v.replace(/["\\]/g, '\\$&') : v));
  return `{"${elements.join('","')}"}`;
}
