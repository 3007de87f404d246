/**
 * The export of a long history without the hour of its backfill: a DuckDB
 * target migrated by ivsync, filled by DuckDB itself with rows shaped like
 * `sessions` sessions (70% authentications with a 600-byte `raw`, 30%
 * fingerprints, a version per 50 sessions, a refresh row per 10, 3
 * accounts), then `ivsync export` to Parquet and to DuckDB, each in its own
 * child process, so its peak RSS and CPU time are its own.
 *
 *   npm run bench -- export-scale [--sessions 10000000] [--keep]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { sqlType } from '../src/schema/column-sql-type.js';
import { TABLES, type ColumnDef, type TableDef } from '../src/schema/schema.js';
import { openSink } from '../src/store/open-sink.js';
import { markdownTable } from './markdown-table.js';
import { runCli, type CommandFigure } from './scale-bench.js';

export interface ExportScaleRun {
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

/** The value of `column` in row `i` (a BIGINT) of `table`, as DuckDB SQL. */
function valueOf(table: TableDef, column: ColumnDef, sessions: number): string {
  const authentications = rowsOf('authentications', sessions);
  const fingerprints = Math.max(1, rowsOf('fingerprints', sessions));
  const id = (prefix: string, n: string) => `'${prefix}-' || lpad(printf('%x', ${n}), 10, '0')`;
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
    case 'raw':
      return `'{"service_id":"' || i || '","pad":"' || repeat('x', 600) || '"}'`;
    case 'valid_from':
      return `TIMESTAMPTZ '2024-01-01' + INTERVAL (i) SECOND`;
    case 'valid_to':
      return `CASE WHEN i % 2 = 0 THEN NULL ELSE TIMESTAMPTZ '2024-02-01' + INTERVAL (i) SECOND END`;
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
      return `TIMESTAMPTZ '2024-01-01' + INTERVAL (i % 100000) SECOND`;
  }
}

/** A DuckDB target at `file`, migrated by ivsync and filled by DuckDB. */
async function fillTarget(file: string, sessions: number): Promise<void> {
  await (await openSink(`duckdb:${file}`)).close();
  const instance = await DuckDBInstance.create(file, { memory_limit: '2GB', preserve_insertion_order: 'false' });
  const connection = await instance.connect();
  try {
    for (const table of TABLES) {
      const rows = rowsOf(table.name, sessions);
      if (rows === 0) continue;
      const values = table.columns.map((c) => `CAST(${valueOf(table, c, sessions)} AS ${sqlType(c.type, 'duckdb')})`);
      const columns = table.columns.map((c) => c.name).join(', ');
      const select = `SELECT ${values.join(', ')} FROM range(${rows}) r(i)`;
      await connection.run(`INSERT INTO ${table.name} (${columns}) ${select}`);
    }
    await connection.run('CHECKPOINT');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

export async function exportScaleRun(options: { sessions: number; keep?: boolean }): Promise<ExportScaleRun> {
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-export-scale-'));
  try {
    const file = join(dir, 'target.duckdb');
    const started = Date.now();
    await fillTarget(file, options.sessions);
    const fillSeconds = (Date.now() - started) / 1000;
    const exports: CommandFigure[] = [];
    const env = { IVS_DB: `duckdb:${file}` } as Record<string, string>;
    for (const to of [`parquet:${join(dir, 'parquet')}`, `duckdb:${join(dir, 'export.duckdb')}`]) {
      const label = `export --to ${to.split(':')[0]}:`;
      exports.push(await runCli(label, ['export', '--to', to, '--json'], env, dir, () => 0));
    }
    if (options.keep === true) console.log(JSON.stringify({ exportScaleKept: dir }));
    return { sessions: options.sessions, fillSeconds, exports };
  } finally {
    if (options.keep !== true) rmSync(dir, { recursive: true, force: true });
  }
}

export function exportScaleTable(runs: readonly ExportScaleRun[]): string {
  return markdownTable(
    ['sessions', 'command', 'wall s', 'CPU s', 'peak RSS MB', 'result'],
    runs.flatMap((r) =>
      r.exports.map((c) => [
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
