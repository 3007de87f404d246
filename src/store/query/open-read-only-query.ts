import { existsSync } from 'node:fs';
import { beforeLoadingDuckdb } from '../drivers/duckdb/duckdb-allocator.js';
import { MissingTargetError } from '../target/missing-target-error.js';
import { parseTarget } from '../target/parse-target.js';
import type { ReadOnlyQuery } from './read-only-query.js';

const PARQUET = 'parquet:';

/**
 * Opens a target (`sqlite:PATH`, `duckdb:PATH`, `postgres://...`) or an
 * analyst export (a DuckDB file, or `parquet:DIR` as `ivsync export` names
 * it) so that nothing can be written through it, and creates nothing: a
 * file that is not there is an error, not a new empty database.
 */
export async function openReadOnlyQuery(target: string): Promise<ReadOnlyQuery> {
  if (target.startsWith(PARQUET)) {
    beforeLoadingDuckdb();
    return (await import('./duckdb-query.js')).parquetQuery(target.slice(PARQUET.length));
  }
  const parsed = parseTarget(target);
  if (parsed.kind !== 'postgres' && !existsSync(parsed.path))
    throw new MissingTargetError(`${parsed.kind}:${parsed.path}`, 'no-file');
  // Drivers load on demand, as the store's do.
  switch (parsed.kind) {
    case 'sqlite':
      return (await import('./sqlite-query.js')).sqliteQuery(parsed.path);
    case 'duckdb':
      beforeLoadingDuckdb();
      return (await import('./duckdb-query.js')).duckdbQuery(parsed.path);
    case 'postgres':
      return (await import('./postgres-query.js')).postgresQuery(parsed);
  }
}
