import { open, rm, type FileHandle } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlType } from '../../schema/column-sql-type.js';
import type { TableDef } from '../../schema/schema.js';
import type { CsvPiece } from '../drivers/sql-driver.js';
import type { ExportSource } from './export-db.js';
import { quote } from './duckdb-sql.js';

/**
 * Bytes of the source table's pages each piece of CSV reads: the piece is a
 * file beside the export until DuckDB has read it, and at most two are on
 * disk at a time (one read by DuckDB while the next is written).
 */
export const CSV_PIECE_BYTES = 64 * 1024 * 1024;

/**
 * Longest row DuckDB's CSV reader takes, in bytes (its default is 2 MB). Its
 * buffer, twice that, comes out of the export's pool (export-db.ts): with
 * DuckDB's own (a 32 MB buffer), and with 4 MB, the insert of an
 * authentications-like file of 70,000 rows ran out of an 80 MB pool; with 2
 * and 3 MB it did not. A table with a longer row, an item of a megabyte or
 * more, is read again by the other path (appendTable).
 */
export const CSV_MAX_LINE_BYTES = 1024 * 1024;

/** A CSV read that failed on a row longer than CSV_MAX_LINE_BYTES: the table is read again another way. */
export class CsvLineTooLong extends Error {}

/**
 * Appends a table read as CSV pieces (ExportSource.copyCsv) to the export's
 * table of the same name: each piece is written to a file `${scratch}.<table>.<n>.csv`
 * and read by DuckDB's CSV reader, typed by the export's columns, while the
 * source writes the next. The rows appended, or null when the source cannot
 * read the table this way (nothing appended). Run in the caller's
 * transaction; a failure leaves it to be rolled back.
 */
export async function appendCsvPieces(
  copyCsv: NonNullable<ExportSource['copyCsv']>,
  connection: DuckDBConnection,
  def: TableDef,
  { pieceBytes, scratch, signal }: { pieceBytes: number; scratch: string; signal: AbortSignal },
): Promise<number | null> {
  let rows = 0;
  let pieces = 0;
  const files = new Set<string>();
  // Open until their piece ends: one whose writing failed is closed when the copy is over.
  const handles = new Set<FileHandle>();
  // The read of the piece before: a piece is read once the one before it is in, in the order they were written.
  let reading: Promise<void> = Promise.resolve();
  // The error of the export's own side (its file, its DuckDB), rather than what the source makes of it.
  const own: unknown[] = [];
  const read = async (file: string) => {
    try {
      const result = await connection.run(`INSERT INTO ${def.name} SELECT * FROM ${readCsv(def, file)}`);
      rows += Number(result.rowsChanged);
    } catch (error) {
      throw csvReadError(def, error);
    } finally {
      files.delete(file);
      await rm(file, { force: true });
    }
  };
  const piece = (): CsvPiece => {
    const file = `${scratch}.${def.name}.${pieces++}.csv`;
    let handle: FileHandle | null = null;
    return {
      write: (chunk) =>
        mine(async () => {
          signal.throwIfAborted();
          if (handle === null) {
            files.add(file);
            handle = await open(file, 'w');
            handles.add(handle);
          }
          await handle.write(chunk);
        }),
      end: () =>
        mine(async () => {
          if (handle !== null) {
            handles.delete(handle);
            await handle.close();
          }
          await reading;
          // An empty piece wrote no file.
          if (handle !== null) reading = read(file);
          // Its failure is seen when the next piece ends, or when the copy is over.
          reading.catch(() => undefined);
        }),
    };
  };
  try {
    const copied = await copyCsv({ table: def.name, columns: def.columns.map((c) => c.name), pieceBytes, piece });
    await mine(() => reading);
    return copied ? rows : null;
  } catch (error) {
    throw own.length > 0 ? own[0] : error;
  } finally {
    await reading.catch(() => undefined);
    await Promise.all([...handles].map((handle) => handle.close().catch(() => undefined)));
    await Promise.all([...files].map((file) => rm(file, { force: true })));
  }

  async function mine<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      own.push(error);
      throw error;
    }
  }
}

/**
 * DuckDB's CSV reader over one piece, each column read as the export's type
 * of it: RFC 4180 as PostgreSQL writes it, an unquoted empty field NULL and a
 * quoted one an empty text; rows end in `\n` alone, as PostgreSQL ends them
 * (left to itself, the reader refused a quoted `\r\n` inside a value). Not in
 * parallel: a value holding a line break (inside its quotes) can be split
 * wrongly where parallel readers divide the file.
 */
function readCsv(def: TableDef, file: string): string {
  const columns = def.columns.map((c) => `${quote(c.name)}: ${quote(sqlType(c.type, 'duckdb'))}`).join(', ');
  return (
    `read_csv(${quote(file)}, columns = {${columns}}, header = false, auto_detect = false, delim = ',', ` +
    `quote = '"', escape = '"', new_line = '\\n', allow_quoted_nulls = false, parallel = false, ` +
    `max_line_size = ${CSV_MAX_LINE_BYTES}, buffer_size = ${2 * CSV_MAX_LINE_BYTES})`
  );
}

/**
 * A failed read of a piece, in one line: DuckDB's message quotes the row it
 * failed on, which may be megabytes (and is the user's data, not the
 * export's to print).
 */
function csvReadError(def: TableDef, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (/maximum line size/i.test(message)) return new CsvLineTooLong(`${def.name}: a row longer than DuckDB reads`);
  const first = message.split('\n')[0]!;
  return new Error(`${def.name}: DuckDB could not read the table's rows as sent (${first})`);
}
