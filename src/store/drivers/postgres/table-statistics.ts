import type { Knex } from 'knex';
import { table } from '../../../schema/schema.js';

export interface TableStatisticsOptions {
  /**
   * Rows this process writes between looks at its tables' statistics.
   * @default 50000
   */
  lookEveryRows?: number;
}

/**
 * A table is analyzed once more rows have changed since its last ANALYZE
 * than this many plus ANALYZE_SCALE of its rows: autovacuum's own defaults
 * (autovacuum_analyze_threshold 50, autovacuum_analyze_scale_factor 0.1),
 * with a larger floor, since a look costs a query.
 */
const ANALYZE_THRESHOLD = 1_000;
const ANALYZE_SCALE = 0.1;

/**
 * A table is vacuumed once more rows were inserted into it since its last
 * VACUUM than this many plus VACUUM_SCALE of its rows (autovacuum's insert
 * trigger of PostgreSQL 13, whose defaults are 1,000 and 0.2, at ANALYZE's
 * scale, so that at most a tenth of a backfilled table is left to the
 * server). A bulk load leaves the visibility map unset, and an index-only
 * scan then reads the table's page of every row it counts: a sync's count of
 * an account's non-final sessions, read from their partial index, took most
 * of ten minutes after a backfill of ten million sessions on a server without
 * autovacuum (docs/benchmarks.md).
 */
const VACUUM_THRESHOLD = 1_000;
const VACUUM_SCALE = 0.1;

/**
 * The VACUUM's options. SKIP_LOCKED: a table another process is vacuuming or
 * analyzing is left to it. TRUNCATE false: the file's length is left alone,
 * since truncating it would wait for the writers. PARALLEL 0: without it the
 * server starts parallel workers for the indexes' cleanup of a table with
 * several indexes (each a new server process), which cost 120–160 ms of a
 * 140–190 ms VACUUM of 7,000 new authentications, 21–23 ms without; the
 * cleanup of an insert-only table has next to nothing to do. The VACUUMs were
 * a seventh of the server's statement time in a 40-account backfill.
 */
export const VACUUM_OPTIONS = 'SKIP_LOCKED, TRUNCATE false, PARALLEL 0';

/**
 * The session tables' columns ivsync's own statements look rows up by: their
 * keys and indexes, and the missing scan's `missing_since` and
 * `last_synced_at`. ANALYZE sorts a sample of 30,000 values of every column
 * it is given, and the session tables have some thirty text columns: of
 * authentications, all of them took 460 ms at 300,000 sessions, these 110–160
 * ms. The rest of the columns (an analyst's filters) are left to autovacuum:
 * an ANALYZE with a column list does not reset the server's count of changed
 * rows, so autovacuum still analyzes the whole table when that count says so.
 */
export const LOOKUP_COLUMNS: ReadonlyMap<string, readonly string[]> = new Map(
  ['authentications', 'fingerprints'].map((name) => {
    const def = table(name);
    const columns = new Set([...def.primaryKey, ...(def.indexes ?? []).flatMap((index) => index.columns)]);
    for (const column of ['missing_since', 'last_synced_at']) columns.add(column);
    return [name, [...columns]];
  }),
);

/**
 * The statistics target of ivsync's own ANALYZE (PostgreSQL's default is 100):
 * ANALYZE samples 300 rows per unit, 3,000 here instead of 30,000, and keeps
 * 10 common values and a 10-bucket histogram per column. That is all the
 * look-ups need: a key's values are found distinct, an account's are few, and
 * the plans stay the index's. At 210,000 sessions (930,000 text fields) the
 * look-up columns of authentications took 16 ms instead of 240, and
 * session_text_fields 19 ms instead of 120; at the default the ANALYZEs were a
 * fifth of the server's statement time in a 40-account backfill. Autovacuum,
 * where it runs, analyzes at the server's own target: every column of the
 * session tables when its count says so (a column list leaves the count), the
 * other tables once a tenth of them has changed since ivsync's ANALYZE.
 */
export const STATISTICS_TARGET = 10;

/**
 * Keeps the planner's statistics and the visibility map of a target's tables
 * in step with a backfill, whether or not the server's autovacuum does. PostgreSQL plans a
 * table that was never analyzed from default estimates: a `service_id =
 * ANY(…)` of 1,600 ids was estimated at half of session_text_fields and read
 * by a scan of all of it (530 ms at 4.4M rows, growing with the history)
 * instead of its index (25–30 ms). Autovacuum analyzes a table after 10% of
 * it changed, but a server may run without it, or behind a bulk load.
 *
 * After a write commit, once this process has written `lookEveryRows` rows,
 * it looks at the schema's tables: one is analyzed when more of its rows
 * changed since its last ANALYZE than ANALYZE_THRESHOLD plus ANALYZE_SCALE of
 * its rows, counting the rows this process wrote to it or, when more, those
 * the server counted (pg_stat_user_tables: every process's, but reported up
 * to a second late). The look runs in the background, one at a time, so no
 * commit waits for it; ANALYZE reads a sample of STATISTICS_TARGET × 300
 * rows, whatever the table's size, and does not block writes. A look or an
 * ANALYZE that fails (a role that does not own the table) changes nothing:
 * statistics only speed plans up. The same look then vacuums the tables with
 * many rows inserted since their last VACUUM (VACUUM_THRESHOLD): VACUUM does
 * not block writes either, reads only the pages the visibility map does not
 * mark all-visible, and runs with VACUUM_OPTIONS; a server before PostgreSQL
 * 13, which does not count inserts, is left to its autovacuum.
 */
export class TableStatistics {
  readonly #knex: Knex;
  readonly #schema: string;
  readonly #lookEveryRows: number;
  /** Rows this process wrote per table since it last analyzed the table. */
  readonly #written = new Map<string, number>();
  /**
   * The server's count of a table's changed rows when this process last
   * analyzed some of its columns, which left that count as it was.
   */
  readonly #countedAtAnalyze = new Map<string, number>();
  /** Rows this process wrote per table since it last vacuumed the table (the server counts its own late). */
  readonly #writtenSinceVacuum = new Map<string, number>();
  #sinceLook = 0;
  #looking: Promise<void> | null = null;

  constructor(knex: Knex, schema: string, options: TableStatisticsOptions = {}) {
    this.#knex = knex;
    this.#schema = schema;
    this.#lookEveryRows = Math.max(1, options.lookEveryRows ?? 50_000);
  }

  /** A transaction that wrote these rows, per table, committed. */
  committed(written: ReadonlyMap<string, number>): void {
    for (const [name, rows] of written) {
      this.#written.set(name, (this.#written.get(name) ?? 0) + rows);
      this.#writtenSinceVacuum.set(name, (this.#writtenSinceVacuum.get(name) ?? 0) + rows);
      this.#sinceLook += rows;
    }
    if (this.#sinceLook < this.#lookEveryRows || this.#looking !== null) return;
    this.#sinceLook = 0;
    this.#looking = this.#look()
      .catch(() => undefined)
      .finally(() => (this.#looking = null));
  }

  /** Resolves once no look is under way (before the pool closes). */
  async settled(): Promise<void> {
    await this.#looking;
  }

  async #look(): Promise<void> {
    // The count by its function, for the schema's tables alone: a join with pg_stat_user_tables, a view that
    // groups, computed it for every table of the database (10–69 ms a look with some 550 relations, 4–5 ms).
    const tables = (await this.#knex.raw(
      'SELECT c.relname, GREATEST(c.reltuples, 0)::float8 AS rows, ' +
        'COALESCE(pg_stat_get_mod_since_analyze(c.oid), 0)::float8 AS changed ' +
        'FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace ' +
        "WHERE n.nspname = ? AND c.relkind = 'r'",
      [this.#schema],
    )) as { rows: { relname: string; rows: number; changed: number }[] };
    for (const { relname, rows, changed } of tables.rows) {
      const mine = this.#written.get(relname) ?? 0;
      // Below the count at this process's last ANALYZE: the whole table was analyzed since, and the count reset.
      const base = this.#countedAtAnalyze.get(relname) ?? 0;
      const since = changed >= base ? changed - base : changed;
      if (Math.max(mine, since) <= ANALYZE_THRESHOLD + ANALYZE_SCALE * rows) continue;
      this.#written.delete(relname);
      const columns = LOOKUP_COLUMNS.get(relname);
      if (columns !== undefined) this.#countedAtAnalyze.set(relname, changed);
      await this.#analyze(relname, columns).catch(() => undefined);
    }
    await this.#vacuum().catch(() => undefined);
  }

  /**
   * VACUUM of each table with more rows inserted since its last VACUUM than VACUUM_THRESHOLD allows, counting the
   * rows this process wrote to it or, when more, those the server counted.
   */
  async #vacuum(): Promise<void> {
    // By its function, as in #look (PostgreSQL 13 and later; an earlier server fails the look, which then changes
    // nothing).
    const tables = (await this.#knex.raw(
      'SELECT c.relname, GREATEST(c.reltuples, 0)::float8 AS rows, ' +
        'COALESCE(pg_stat_get_ins_since_vacuum(c.oid), 0)::float8 AS inserted ' +
        'FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace ' +
        "WHERE n.nspname = ? AND c.relkind = 'r'",
      [this.#schema],
    )) as { rows: { relname: string; rows: number; inserted: number }[] };
    for (const { relname, rows, inserted } of tables.rows) {
      const mine = this.#writtenSinceVacuum.get(relname) ?? 0;
      if (Math.max(mine, inserted) <= VACUUM_THRESHOLD + VACUUM_SCALE * rows) continue;
      this.#writtenSinceVacuum.delete(relname);
      // Not in a transaction: VACUUM cannot run inside one. PARALLEL 0: see VACUUM_OPTIONS.
      await this.#knex.raw(`VACUUM (${VACUUM_OPTIONS}) ??.??`, [this.#schema, relname]).catch(() => undefined);
    }
  }

  /** ANALYZE of `columns` of `relname` (all of them when undefined), at STATISTICS_TARGET. */
  async #analyze(relname: string, columns: readonly string[] | undefined): Promise<void> {
    const list = columns === undefined ? '' : ` (${columns.map(() => '??').join(', ')})`;
    await this.#knex.transaction(async (trx) => {
      // SET LOCAL ends with the transaction: the pooled connection keeps the server's target for other statements.
      await trx.raw(`SET LOCAL default_statistics_target = ${STATISTICS_TARGET}`);
      await trx.raw(`ANALYZE ??.??${list}`, [this.#schema, relname, ...(columns ?? [])]);
    });
  }
}
