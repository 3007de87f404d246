/**
 * The export of a long history without the hour of its backfill: a target
 * migrated by ivsync (a SQLite or DuckDB file, or a Postgres schema), filled by its own
 * database with rows shaped like `sessions` sessions (70% authentications
 * with a 600-byte `raw`, 30% fingerprints, a version per 50 sessions, a
 * refresh row per 10, 3 accounts) in the order a crawl stores them, then
 * `ivsync export` to Parquet and to DuckDB, each in its own child process,
 * so its peak RSS and CPU time are its own.
 *
 *   npm run bench -- export-scale [--sessions 10000000] [--target duckdb|sqlite|postgres] [--keep]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import pg from 'pg';
import { sqlType } from '../src/schema/column-sql-type.js';
import { TABLES, type ColumnDef, type TableDef } from '../src/schema/schema.js';
import { openSink } from '../src/store/open-sink.js';
import { markdownTable } from './markdown-table.js';
import { runCli, type CommandFigure } from './scale-bench.js';
import { dropSchema } from './target-backfill.js';

/** Where the history is filled: a DuckDB file, or a schema of the Postgres server at `url`. */
export type ExportScaleTarget = { kind: 'duckdb' } | { kind: 'sqlite' } | { kind: 'postgres'; url: string };

export interface ExportScaleRun {
  target: ExportScaleTarget['kind'];
  sessions: number;
  fillSeconds: number;
  exports: CommandFigure[];
}

/** Rows of each table filled, for `sessions` sessions; the others stay empty. */
function rowsOf(table: string, sessions: number): number {
  const authentications = Math.round(sessions * 0.7);
  const rows: Record<string, number> = {
    authentications,
    fingerprints: sessions - authentications,
    session_versions: Math.round(sessions / 50),
    session_refresh: Math.round(sessions / 10),
    change_lags: Math.round(sessions / 100),
    sync_windows: 2_000,
    sync_runs: 50,
  };
  return rows[table] ?? 0;
}

/**
 * Row `n`'s key among `count`, scattered: a crawl stores sessions in the order of their time, and the service's ids
 * bear no relation to it, so the rows holding a range of ids lie all over the table (a fill in key order let every
 * range read skip most row groups, as no crawled target does). 1,000,003 is a prime: n → n × p mod count is one to
 * one over 0 … count − 1 whenever count is not a multiple of it.
 */
function scattered(n: string, count: number): string {
  return `((${n}) * 1000003) % ${count}`;
}

type FillDialect = ExportScaleTarget['kind'];

/** `seconds` after `at`, in the dialect's SQL: SQLite's as the text the driver stores (time.ts toIsoMicros). */
function plusSeconds(dialect: FillDialect, at: string, seconds: string): string {
  if (dialect === 'sqlite')
    return `strftime('%Y-%m-%dT%H:%M:%S', '${at}', '+' || (${seconds}) || ' seconds') || '.000000Z'`;
  return dialect === 'duckdb'
    ? `TIMESTAMPTZ '${at}' + INTERVAL (${seconds}) SECOND`
    : `TIMESTAMPTZ '${at}' + make_interval(secs => ${seconds})`;
}

/** The value of `column` in row `i` (a BIGINT) of `table`, in the dialect's SQL. */
function valueOf(dialect: FillDialect, table: TableDef, column: ColumnDef, sessions: number): string {
  const authentications = rowsOf('authentications', sessions);
  const fingerprints = Math.max(1, rowsOf('fingerprints', sessions));
  const hex = (n: string) => (dialect === 'duckdb' ? `printf('%x', ${n})` : `to_hex(${n})`);
  const id = (prefix: string, n: string) =>
    dialect === 'sqlite' ? `'${prefix}-' || printf('%010x', ${n})` : `'${prefix}-' || lpad(${hex(n)}, 10, '0')`;
  switch (column.name) {
    case 'service_id':
      return table.name === 'fingerprints'
        ? id('fp', scattered('i', fingerprints))
        : id('au', scattered('i', authentications));
    case 'parent_service_id':
      return id('fp', scattered('i * 7', fingerprints));
    case 'account':
      return `'acct-' || (i % 3)`;
    case 'resource':
      return `'authentications'`;
    case 'customer_item_id':
      return `'item-' || ${scattered('i', Math.max(1, Math.round(authentications / 2)))}`;
    case 'result_final':
      return 'i % 10 <> 0';
    case 'missing_since':
      return 'NULL';
    case 'created_epoch':
      return '1600000000 + i * 3.0';
    case 'raw': {
      const pad = dialect === 'sqlite' ? `printf('%.600c', 'x')` : `repeat('x', 600)`;
      return `'{"service_id":"' || i || '","pad":"' || ${pad} || '"}'`;
    }
    case 'valid_from':
      return plusSeconds(dialect, '2024-01-01', 'i');
    case 'valid_to':
      return `CASE WHEN i % 2 = 0 THEN NULL ELSE ${plusSeconds(dialect, '2024-02-01', 'i')} END`;
    case 'tier':
      return `CASE WHEN i % 3 = 0 THEN 'hot' ELSE 'backoff' END`;
    case 'mode':
      return `CASE WHEN i % 2 = 0 THEN 'compare' ELSE 'register' END`;
    case 'window_start':
      return 'i * 86400';
    case 'window_end':
      return '(i + 1) * 86400';
  }
  switch (column.type) {
    case 'text':
      return `'v' || (i % 97)`;
    case 'real':
      return '(i % 1000) * 1.5';
    case 'integer':
      return 'i % 1000';
    case 'boolean':
      return 'i % 2 = 0';
    case 'json':
      return `'{"a":1}'`;
    case 'timestamp':
      return plusSeconds(dialect, '2024-01-01', 'i % 100000');
  }
}

function filledTables(sessions: number): TableDef[] {
  return TABLES.filter((table) => rowsOf(table.name, sessions) > 0);
}

/** Each filled table's INSERT … SELECT of its rows, in the dialect's SQL. */
function fillStatements(dialect: FillDialect, sessions: number): string[] {
  return filledTables(sessions).map((table) => {
    const rows = rowsOf(table.name, sessions);
    const values = table.columns.map(
      (c) => `CAST(${valueOf(dialect, table, c, sessions)} AS ${sqlType(c.type, dialect)})`,
    );
    const columns = table.columns.map((c) => c.name).join(', ');
    if (dialect === 'sqlite') {
      const series = `WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < ${rows - 1})`;
      return `INSERT INTO ${table.name} (${columns}) ${series} SELECT ${values.join(', ')} FROM r`;
    }
    const from = dialect === 'duckdb' ? `range(${rows}) r(i)` : `generate_series(0::bigint, ${rows - 1}) r(i)`;
    return `INSERT INTO ${table.name} (${columns}) SELECT ${values.join(', ')} FROM ${from}`;
  });
}

/** A DuckDB target at `file`, migrated by ivsync and filled by DuckDB. */
async function fillDuckdb(file: string, sessions: number): Promise<void> {
  await (await openSink(`duckdb:${file}`)).close();
  const instance = await DuckDBInstance.create(file, { memory_limit: '2GB', preserve_insertion_order: 'false' });
  const connection = await instance.connect();
  try {
    for (const statement of fillStatements('duckdb', sessions)) await connection.run(statement);
    await connection.run('CHECKPOINT');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * A SQLite target at `file`, migrated by ivsync and filled by SQLite in one transaction, then analyzed. Its
 * booleans are SQLite's 0 and 1, its times the text the driver writes.
 */
async function fillSqlite(file: string, sessions: number): Promise<void> {
  await (await openSink(`sqlite:${file}`)).close();
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.transaction(() => {
      for (const statement of fillStatements('sqlite', sessions)) db.exec(statement);
    })();
    db.exec('ANALYZE');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/**
 * A Postgres target in `schema`, migrated by ivsync and filled by the server, then vacuumed and analyzed as the
 * driver leaves a backfill's tables.
 */
async function fillPostgres(url: string, schema: string, sessions: number): Promise<void> {
  const target = new URL(url);
  target.searchParams.set('schema', schema);
  await (await openSink(target.toString())).close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`SET search_path = "${schema}"`);
    for (const statement of fillStatements('postgres', sessions)) await client.query(statement);
    // The filled tables only: VACUUM without one would go through every schema of the database.
    for (const table of filledTables(sessions)) await client.query(`VACUUM ANALYZE ${table.name}`);
  } finally {
    await client.end();
  }
}

export async function exportScaleRun(options: {
  sessions: number;
  target?: ExportScaleTarget;
  keep?: boolean;
}): Promise<ExportScaleRun> {
  const target = options.target ?? { kind: 'duckdb' };
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-export-scale-'));
  const schema = `bench_export_${randomBytes(4).toString('hex')}`;
  try {
    const started = Date.now();
    let db: string;
    if (target.kind === 'duckdb') {
      const file = join(dir, 'target.duckdb');
      await fillDuckdb(file, options.sessions);
      db = `duckdb:${file}`;
    } else if (target.kind === 'sqlite') {
      const file = join(dir, 'target.sqlite');
      await fillSqlite(file, options.sessions);
      db = `sqlite:${file}`;
    } else {
      await fillPostgres(target.url, schema, options.sessions);
      const url = new URL(target.url);
      url.searchParams.set('schema', schema);
      db = url.toString();
    }
    const fillSeconds = (Date.now() - started) / 1000;
    const exports: CommandFigure[] = [];
    const env = { IVS_DB: db } as Record<string, string>;
    for (const to of [`parquet:${join(dir, 'parquet')}`, `duckdb:${join(dir, 'export.duckdb')}`]) {
      const label = `export --to ${to.split(':')[0]}:`;
      exports.push(await runCli(label, ['export', '--to', to, '--json'], env, dir, () => 0));
    }
    if (options.keep === true)
      console.log(JSON.stringify({ exportScaleKept: target.kind === 'postgres' ? schema : dir }));
    return { target: target.kind, sessions: options.sessions, fillSeconds, exports };
  } finally {
    if (options.keep !== true) {
      rmSync(dir, { recursive: true, force: true });
      if (target.kind === 'postgres') await dropSchema(target.url, schema);
    }
  }
}

export function exportScaleTable(runs: readonly ExportScaleRun[]): string {
  return markdownTable(
    ['target', 'sessions', 'command', 'wall s', 'CPU s', 'peak RSS MB', 'result'],
    runs.flatMap((r) =>
      r.exports.map((c) => [
        r.target,
        String(r.sessions),
        c.command,
        c.seconds.toFixed(1),
        (c.cpuMs / 1000).toFixed(1),
        c.peakRssMb.toFixed(0),
        c.failed ?? 'ok',
      ]),
    ),
  );
}
