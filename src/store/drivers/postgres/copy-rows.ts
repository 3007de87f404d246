import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type pg from 'pg';
import copyStreams from 'pg-copy-streams';
import type { TableDef } from '../../../schema/schema.js';
import { columnValue } from '../column-value.js';
import type { Row } from '../sql-driver.js';

/**
 * Fewest rows a plain insert (no conflict expected) sends by COPY rather than
 * by INSERT: COPY takes a round trip more (the server's go-ahead), which a
 * webhook delivery's few rows do not pay back.
 */
export const COPY_MIN_ROWS = 64;

/**
 * Inserts `rows`, none of which may exist already, with `COPY … FROM STDIN`
 * on the transaction's own connection: the server reads the text format
 * straight into the table, where `json_to_recordset` parsed a JSON document of
 * every row (each item's `raw` escaped inside it) and cast each value from it.
 * A row the table refuses fails the statement, as the INSERT did.
 */
export async function copyRows(trx: Knex.Transaction, table: TableDef, rows: readonly Row[]): Promise<void> {
  // Inside a transaction knex hands out the transaction's connection, and its release does nothing.
  const connection = (await trx.client.acquireConnection()) as pg.Client;
  const columns = table.columns.map((c) => c.name).join(', ');
  const stream = connection.query(copyStreams.from(`COPY ${table.name} (${columns}) FROM STDIN`));
  await pipeline(Readable.from(copyChunks(table, rows)), stream);
}

/**
 * Bytes of COPY text sent at a time. A group commit's session rows are
 * megabytes of text: made as one string, joined from a string per row, each
 * went to V8's large-object space, which only a full collection frees (the
 * text of 1,600 stored authentications made 300 times: 8.0 s of CPU and 45
 * full collections, 1.4 s and 1 in chunks of 32K characters). Each value is
 * now written into the chunk's bytes as it is made, rather than joined into
 * a string that the stream then turned into bytes: the joined strings and
 * their copies were a fifth of the bytes a backfill into Postgres allocated
 * (docs/benchmarks.md). The server reads the stream, not the chunks: a line
 * may span two.
 */
const CHUNK_BYTES = 64 * 1024;

const TAB = 0x09;
const NEWLINE = 0x0a;

/** The rows in COPY's text format: a line per row, tab between columns, `\N` for NULL; as UTF-8, in chunks. */
function* copyChunks(table: TableDef, rows: readonly Row[]): Generator<Buffer> {
  const columns = table.columns;
  const last = columns.length - 1;
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let at = 0;
  for (const row of rows) {
    for (let c = 0; c <= last; c++) {
      const column = columns[c]!;
      const text = copyField(columnValue(column, row[column.name]), column.type === 'boolean');
      // At most three bytes a UTF-16 unit, and the tab or newline after it.
      const most = text.length * 3 + 1;
      if (at + most > chunk.length) {
        if (at > 0) yield chunk.subarray(0, at);
        chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, most));
        at = 0;
      }
      at += chunk.write(text, at);
      chunk[at++] = c === last ? NEWLINE : TAB;
    }
  }
  if (at > 0) yield chunk.subarray(0, at);
}

/** Backslash, newline, carriage return and tab, which the text format escapes. */
const SPECIAL = /[\\\n\r\t]/g;
const HAS_SPECIAL = /[\\\n\r\t]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Most values hold none of them: a test is cheaper than a replace that calls back for none. */
const escaped = (text: string): string => (HAS_SPECIAL.test(text) ? text.replace(SPECIAL, (ch) => ESCAPES[ch]!) : text);

/**
 * One value as the INSERT's JSON document carried it: a number that is not
 * finite was `null` there, and so is NULL here; a boolean bound to a column
 * of another type was `true` or `false`; a Date was its ISO text, another
 * object its JSON text.
 */
function copyField(value: unknown, booleanColumn: boolean): string {
  switch (typeof value) {
    case 'string':
      return escaped(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : '\\N';
    case 'boolean':
      return booleanColumn ? (value ? 't' : 'f') : String(value);
    case 'bigint':
      return value.toString();
    case 'object':
      if (value === null) return '\\N';
      return escaped(value instanceof Date ? value.toISOString() : JSON.stringify(value));
    default:
      return '\\N';
  }
}
