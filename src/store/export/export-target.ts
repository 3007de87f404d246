import { UserError } from '../../errors.js';

/** Where `ivsync export` writes: one DuckDB file, or a directory of Parquet files (one per table and view). */
export type ExportTarget = { kind: 'duckdb'; path: string } | { kind: 'parquet'; dir: string };

/** Reads `--to`: `duckdb:PATH` or `parquet:DIR`. */
export function parseExportTarget(to: string): ExportTarget {
  for (const kind of ['duckdb', 'parquet'] as const) {
    const prefix = `${kind}:`;
    if (!to.startsWith(prefix)) continue;
    const path = to.slice(prefix.length);
    if (path === '')
      throw new UserError(
        'BAD_EXPORT_TARGET',
        `export target '${to}' has no path: expected ${kind === 'duckdb' ? 'duckdb:PATH' : 'parquet:DIR'}`,
      );
    return kind === 'duckdb' ? { kind, path } : { kind, dir: path };
  }
  throw new UserError('BAD_EXPORT_TARGET', `unknown export target '${to}': expected duckdb:PATH or parquet:DIR`);
}
