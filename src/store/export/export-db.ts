import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { CsvCopy, KeysetRead } from '../drivers/sql-driver.js';
import { duckdbMemorySettings } from '../drivers/duckdb/duckdb-settings.js';
import { lockHolder } from '../drivers/duckdb/duckdb-open.js';
import { TargetLockedError } from '../drivers/target-locked-error.js';
import { quote } from './duckdb-sql.js';
import { releaseHeap } from './release-heap.js';

/**
 * The part of a target the export reads: read-only SQL with `?` placeholders,
 * values as every driver gives them (sql-driver.ts), whatever the dialect.
 */
export interface ExportSource {
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /**
   * A whole query's rows in one read, a chunk at a time (QueryableSink.scan). Where present, a table is read
   * with it in the order its rows lie, not in key order a chunk per query.
   */
  scan?(sql: string, visit: (rows: Record<string, unknown>[]) => void): Promise<void>;
  /**
   * A table's rows as CSV, a piece at a time, as of one instant (QueryableSink.copyCsv). Where present, a table
   * is read with it first: DuckDB reads the text itself, and no value passes through JavaScript.
   */
  copyCsv?(copy: CsvCopy): Promise<boolean>;
  /**
   * A table's rows in key order as arrays, a chunk at a time, the next chunk read on another thread while this
   * one is appended (QueryableSink.keysetChunks). Where present, a table is read with it rather than by `query`.
   */
  keysetChunks?(read: KeysetRead): AsyncIterable<unknown[][]>;
}

/**
 * A DuckDB target read in place: the export's own DuckDB attaches the file
 * read-only and copies each table with one statement, so no row passes
 * through JavaScript and one DuckDB instance, one buffer pool, does the work.
 * Read with keyset chunks instead, DuckDB answered every `ORDER BY key LIMIT`
 * by scanning the table: 620 MB and 50 s at 100k sessions, growing with it.
 * The file must not be open in another process (DuckDB's lock).
 */
export interface DuckdbFileSource {
  readonly duckdbFile: string;
}

/**
 * The export's buffer pool while it copies tables: the pool fills whatever
 * its size. At 1M sessions, copying authentications from SQLite to Parquet
 * (a commit per chunk) peaked at 489 MB with 192 MB and at 410 MB with 96 MB;
 * 64 MB ran out (a block of 256 KB could not be pinned). With a transaction
 * per table, 80 MB took the 1M exports to Parquet from 398 to 382 MB
 * (SQLite) and from 410 to 398 MB (Postgres).
 */
const TABLE_MEMORY_LIMIT_MB = 80;

/**
 * The pool of each view's instance. The views that grow with the history
 * run a range of sessions at a time (view-pieces.ts), which 128 MB holds
 * (96 MB ran out on a piece of 250,000 authentications); the others run whole
 * at 10M sessions in it. 192 MB, the pool before pieces, only raised RSS.
 */
const VIEW_MEMORY_LIMIT_MB = 128;

export function isDuckdbFile(source: ExportSource | DuckdbFileSource): source is DuckdbFileSource {
  return 'duckdbFile' in source;
}

/** The catalog the export's own file is attached as, and made the default. */
const EXPORT_CATALOG = 'ivsync_export';

/**
 * Rows of a row group of the export's tables. The rows a transaction appends
 * stay in memory until a row group fills, and DuckDB's default of 122,880
 * rows of 2 KB is 245 MB: 300,000 such rows appended in one transaction
 * peaked at 548 MB; in groups of 16,384, at 276 MB (32,768: 298 MB). A
 * Postgres source's export of 100,000 sessions peaked at 428–439 MB in its
 * authentications table before.
 */
const ROW_GROUP_ROWS = 16_384;

/** The catalog a DuckDB source file is attached as. */
export const SOURCE_CATALOG = 'ivsync_source';

/**
 * The export's DuckDB file, open: `connection` for the tables, and a fresh
 * instance for each view (forView). glibc keeps what a freed DuckDB
 * statement held, so one instance's RSS climbed view after view: at 10M
 * sessions from 118 MB to 667 MB over the views' steps, where no step alone
 * took more than ~380 MB. Each view then starts from a process that gave
 * back the last one's memory to the next instance.
 */
export interface ExportDb {
  readonly connection: DuckDBConnection;
  /** Closes the instance and opens the file again with the view pool: the connection to run the next view on. */
  forView(): Promise<DuckDBConnection>;
}

export async function withDuckdb(
  path: string,
  source: ExportSource | DuckdbFileSource,
  work: (db: ExportDb) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  let instance: DuckDBInstance | null = null;
  let connection: DuckDBConnection | null = null;
  // A stop interrupts the statement running (a view's COPY can take minutes); the next one does not start.
  const interrupt = () => connection?.interrupt();
  signal.addEventListener('abort', interrupt, { once: true });
  const close = () => {
    connection?.closeSync();
    instance?.closeSync();
    connection = instance = null;
  };
  const open = async (memoryLimitMb: number): Promise<DuckDBConnection> => {
    close();
    // What the step before left in the JavaScript heap goes back to the system before DuckDB takes its turn.
    releaseHeap();
    instance = await DuckDBInstance.create(':memory:', {
      ...duckdbMemorySettings({ memoryLimitMb }),
      // Its cache of the Parquet files read kept ~120 MB more in RSS over the views of 10M sessions.
      enable_external_file_cache: 'false',
      // Where a file database would spill: beside it, never in the working directory.
      temp_directory: `${path}.tmp`,
    });
    const opened = stopping(await instance.connect(), signal);
    connection = opened;
    await opened.run(`ATTACH ${quote(path)} AS ${EXPORT_CATALOG} (ROW_GROUP_SIZE ${ROW_GROUP_ROWS})`);
    await opened.run(`USE ${EXPORT_CATALOG}`);
    if (isDuckdbFile(source)) await attachSource(opened, source.duckdbFile);
    return opened;
  };
  try {
    const db = {
      connection: await open(TABLE_MEMORY_LIMIT_MB),
      forView: () => open(VIEW_MEMORY_LIMIT_MB),
    };
    await work(db);
    const last = connection as DuckDBConnection | null;
    if (last === null) return;
    if (isDuckdbFile(source)) await last.run(`DETACH ${SOURCE_CATALOG}`);
    // Fold the WAL into the file, so it opens anywhere as one file.
    await last.run(`CHECKPOINT ${EXPORT_CATALOG}`);
  } finally {
    signal.removeEventListener('abort', interrupt);
    close();
  }
}

/**
 * The connection, each of whose calls first throws the signal's reason once it is aborted: every statement of
 * the export, a view's pieces and their clean-up included, stops there, wherever it is run from.
 */
function stopping(connection: DuckDBConnection, signal: AbortSignal): DuckDBConnection {
  const always = new Set<PropertyKey>(['interrupt', 'closeSync', 'disconnectSync']);
  return new Proxy(connection, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function' || always.has(key)) return value;
      return (...args: unknown[]): unknown => {
        signal.throwIfAborted();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** The source file, read-only; another process holding it is TargetLockedError, as for any DuckDB target. */
async function attachSource(connection: DuckDBConnection, file: string): Promise<void> {
  try {
    await connection.run(`ATTACH ${quote(file)} AS ${SOURCE_CATALOG} (READ_ONLY)`);
  } catch (error) {
    const holder = lockHolder(error);
    if (holder !== null) throw new TargetLockedError(`duckdb:${file}`, holder);
    throw error;
  }
}
