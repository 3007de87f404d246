import type { Knex } from 'knex';
import type pg from 'pg';
import copyStreams from 'pg-copy-streams';
import type { CsvCopy } from '../sql-driver.js';

/** PostgreSQL's first release that reads a range of a table's pages alone (a TID range scan): 14. */
const TID_RANGE_SCANS = 140_000;

/**
 * How a piece's text is written, whatever the server, the role or the URL's
 * `options` set: times in UTC as ISO (`2026-01-02 03:04:05.123456+00`), and
 * each double in the fewest digits that read back as the same double.
 */
const OUTPUT_SETTINGS = ["TimeZone = 'UTC'", "DateStyle = 'ISO, YMD'", 'extra_float_digits = 1']
  .map((setting) => `SET LOCAL ${setting}`)
  .join('; ');

/**
 * A table's rows as CSV, `COPY (SELECT …) TO STDOUT (FORMAT csv)`, a range of
 * its pages at a time, on `trx`'s connection: the transaction (REPEATABLE
 * READ, SqlDriver.copyCsv) makes every piece read the table as of one
 * instant. The last piece has no end, though no row the snapshot sees lies
 * past the pages counted in it. Each piece is read to its end whatever its
 * writer does: the COPY holds the connection until then, and a write that
 * fails (a full disk) only stops the writing; its error is thrown once the
 * piece is over. False, with nothing read, before PostgreSQL 14, where each
 * range would be read by a scan of the whole table.
 */
export async function copyCsvPieces(trx: Knex.Transaction, copy: CsvCopy): Promise<boolean> {
  await trx.raw(OUTPUT_SETTINGS);
  const found = (await trx.raw(
    `SELECT current_setting('server_version_num')::int AS version, current_setting('block_size')::int AS block,
            pg_relation_size(?::regclass) AS bytes`,
    [copy.table],
  )) as pg.QueryResult<{ version: number; block: number; bytes: number }>;
  const { version, block, bytes } = found.rows[0]!;
  if (version < TID_RANGE_SCANS) return false;
  const pages = Math.ceil(bytes / block);
  const step = Math.max(1, Math.floor(copy.pieceBytes / block));
  // Inside a transaction knex hands out the transaction's connection, and its release does nothing.
  const connection = (await trx.client.acquireConnection()) as pg.Client;
  const select = `SELECT ${copy.columns.join(', ')} FROM ${copy.table}`;
  for (let from = 0; ; from += step) {
    const last = from + step >= pages;
    const range = `ctid >= '(${from},0)'::tid${last ? '' : ` AND ctid < '(${from + step},0)'::tid`}`;
    const piece = copy.piece();
    const csv = connection.query(copyStreams.to(`COPY (${select} WHERE ${range}) TO STDOUT (FORMAT csv)`));
    let failed: { error: unknown } | null = null;
    for await (const chunk of csv as AsyncIterable<Buffer>) {
      if (failed !== null) continue;
      try {
        await piece.write(chunk);
      } catch (error) {
        failed = { error };
      }
    }
    if (failed !== null) throw failed.error;
    await piece.end();
    if (last) return true;
  }
}
