import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DuckDBInstance, DuckDBTypeId, StatementType, type DuckDBConnection } from '@duckdb/node-api';
import { UserError } from '../../errors.js';
import { QueryRefusedError } from './query-refused-error.js';
import type { QueryResult, ReadOnlyQuery } from './read-only-query.js';

/**
 * Statements that only read. A DuckDB file opened READ_ONLY refuses writes to
 * itself, but COPY ... TO and EXPORT DATABASE write other files, so the
 * statement's type is checked as well.
 */
const READING: ReadonlySet<StatementType> = new Set([StatementType.SELECT, StatementType.EXPLAIN]);

/** Integer types DuckDB's JSON conversion gives as text, since they may exceed 2^53. */
const WIDE_INTEGERS: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
]);

/** A wide integer as a number where that is exact (a count(*) is a BIGINT), else its text. */
function wideInteger(value: unknown): unknown {
  return typeof value === 'string' && Number.isSafeInteger(Number(value)) ? Number(value) : value;
}

function failed(error: unknown): UserError {
  return new UserError(
    'QUERY_FAILED',
    `duckdb: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`,
  );
}

async function runOne(connection: DuckDBConnection, sql: string): Promise<QueryResult> {
  try {
    const extracted = await connection.extractStatements(sql);
    if (extracted.count !== 1) throw new QueryRefusedError(`got ${extracted.count} statements`);
    const prepared = await extracted.prepare(0);
    if (!READING.has(prepared.statementType))
      throw new QueryRefusedError(`got a ${StatementType[prepared.statementType]} statement`);
    const reader = await prepared.runAndReadAll();
    const wide = reader.columnTypes().map((t) => WIDE_INTEGERS.has(t.typeId));
    const rows = reader.getRowsJson().map((row) => row.map((v, i) => (wide[i] ? wideInteger(v) : v)));
    return { columns: reader.columnNames(), rows };
  } catch (error) {
    throw error instanceof UserError ? error : failed(error);
  }
}

function wrap(instance: DuckDBInstance, connection: DuckDBConnection): ReadOnlyQuery {
  return {
    run: (sql) => runOne(connection, sql),
    close: async () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** A DuckDB file (a target or an `ivsync export`), opened with access_mode READ_ONLY. */
export async function duckdbQuery(path: string): Promise<ReadOnlyQuery> {
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  } catch (error) {
    throw failed(error);
  }
  return wrap(instance, await instance.connect());
}

/**
 * A Parquet export (`ivsync export --to parquet:DIR`): an in-memory DuckDB
 * with one view per file, named after it, so the analyst's SQL reads the
 * same table names as on the target. The configuration is locked once the
 * views exist, and only reading statements run.
 */
export async function parquetQuery(dir: string): Promise<ReadOnlyQuery> {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.parquet')) : [];
  if (files.length === 0)
    throw new UserError(
      'NO_TARGET',
      `parquet:${dir} holds no .parquet files: nothing to read; check the folder ivsync export wrote`,
    );
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  for (const file of files) {
    const name = basename(file, '.parquet').replace(/"/g, '""');
    const quoted = join(dir, file).replace(/'/g, "''");
    await connection.run(`CREATE VIEW "${name}" AS SELECT * FROM read_parquet('${quoted}')`);
  }
  await connection.run('SET lock_configuration = true');
  return wrap(instance, connection);
}
