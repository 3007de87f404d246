import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type { TableDef } from '../../schema/schema.js';
import { withAppender } from '../drivers/duckdb/duckdb-appender.js';
import { appendCsvPieces, CsvLineTooLong } from './csv-pieces.js';
import type { ExportSource } from './export-db.js';
import { exportValue, type ExportValue } from './export-value.js';
import { keyOf, keysetPage, keysetRead } from './keyset-page.js';
import { releaseHeap } from './release-heap.js';

/**
 * Appends the rows of a table to the export's table of that name; the rows
 * appended. Read as CSV pieces where the source has them (csv-pieces.ts),
 * else in chunks of rows. One transaction for the whole table: DuckDB then
 * writes each row group to the file as it fills, and the commit logs only
 * where they are. A commit per chunk sent every row through the WAL and kept
 * it in memory until a checkpoint: 1M sessions' fingerprints to Parquet
 * peaked at 464 MB that way, 400 MB in one transaction (192 MB pool).
 */
export async function appendTable(
  source: ExportSource,
  connection: DuckDBConnection,
  def: TableDef,
  { chunkRows, csvPieceBytes, signal, scratch }: TableRead,
): Promise<number> {
  if (source.copyCsv) {
    try {
      const rows = await inTransaction(connection, () =>
        appendCsvPieces(source.copyCsv!.bind(source), connection, def, { pieceBytes: csvPieceBytes, scratch, signal }),
      );
      if (rows !== null) return rows;
    } catch (error) {
      // Rolled back: read again in chunks of rows, which takes a row of any length.
      if (!(error instanceof CsvLineTooLong)) throw error;
    }
  }
  const rows = await inTransaction(connection, () => appendChunks(source, connection, def, chunkRows, signal));
  // The rows read for this table are garbage now: the next table, and the views, start without them.
  if (rows > chunkRows) releaseHeap();
  return rows;
}

/** How appendTable reads a table: `scratch` is the path prefix of the files it may write beside the export. */
export interface TableRead {
  chunkRows: number;
  csvPieceBytes: number;
  signal: AbortSignal;
  scratch: string;
}

async function inTransaction<T>(connection: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await connection.run('COMMIT');
    return result;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function appendChunks(
  source: ExportSource,
  connection: DuckDBConnection,
  def: TableDef,
  chunkRows: number,
  signal: AbortSignal,
): Promise<number> {
  return withAppender(connection, def.name, undefined, async (appender) => {
    let rows = 0;
    const { columns } = def;
    // Rows come as objects (`query`, `scan`) or as arrays in the order of the columns (`keysetChunks`).
    const appendChunk = <R>(chunk: readonly R[], valueOf: (row: R, at: number) => unknown) => {
      signal.throwIfAborted();
      for (const row of chunk) {
        for (let i = 0; i < columns.length; i++) append(appender, exportValue(columns[i]!, def.name, valueOf(row, i)));
        appender.endRow();
      }
      appender.flushSync();
      rows += chunk.length;
    };
    const byName = (row: Record<string, unknown>, at: number) => row[columns[at]!.name];
    if (source.keysetChunks) {
      for await (const chunk of source.keysetChunks(keysetRead(def, chunkRows)))
        appendChunk(chunk, (row, at) => row[at]);
      return rows;
    }
    if (source.scan) {
      // In the order the rows lie, with no index: a crawl stores sessions in the order of their times, so a read in
      // key order took a table page per row, at random.
      const sql = `SELECT ${columns.map((c) => c.name).join(', ')} FROM ${def.name}`;
      await source.scan(sql, (chunk) => appendChunk(chunk, byName));
      return rows;
    }
    let after: unknown[] | null = null;
    for (;;) {
      const page = keysetPage(def, after, chunkRows);
      const chunk = await source.query(page.sql, page.params);
      appendChunk(chunk, byName);
      if (chunk.length < chunkRows) return rows;
      after = keyOf(def, chunk[chunk.length - 1]!);
    }
  });
}

function append(appender: DuckDBAppender, value: ExportValue): void {
  switch (value.kind) {
    case 'null':
      return appender.appendNull();
    case 'varchar':
      return appender.appendVarchar(value.value);
    case 'double':
      return appender.appendDouble(value.value);
    case 'bigint':
      return appender.appendBigInt(value.value);
    case 'boolean':
      return appender.appendBoolean(value.value);
    case 'timestamptz':
      // As text, which DuckDB reads exactly (the value has its zone): several times faster than a TIMESTAMPTZ value.
      return appender.appendVarchar(value.value);
  }
}
