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
  await pipeline(Readable.from(copyText(table, rows)), stream);
}

/**
 * Characters of COPY text sent at a time, in whole lines. A group commit's
 * session rows are megabytes of text: made as one string, joined from a
 * string per row, each went to V8's large-object space, which only a full
 * collection frees. The text of 1,600 stored authentications (1.85 MB), made
 * and turned into bytes 300 times: 8.0 s of CPU and 45 full collections as
 * one string, 1.4 s and 1 in chunks of 32K characters (docs/benchmarks.md).
 */
const CHUNK_CHARS = 32 * 1024;

/** The rows in COPY's text format, in chunks of whole lines: a line per row, tab between columns, `\N` for NULL. */
function* copyText(table: TableDef, rows: readonly Row[]): Generator<string> {
  const columns = table.columns;
  let chunk = '';
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    for (let c = 0; c < columns.length; c++) {
      const column = columns[c]!;
      if (c > 0) chunk += '\t';
      chunk += copyField(columnValue(column, row[column.name]), column.type === 'boolean');
    }
    chunk += '\n';
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
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
