import pg from 'pg';

/**
 * What a PostgreSQL server wrote to its WAL, and the settings that decide how
 * much. A backfill inserts into indexes on random keys (service_id,
 * customer_item_id, the child tables' keys); after each checkpoint the first
 * change to an index page writes the whole page to the WAL, and the WAL
 * written brings the next checkpoint (max_wal_size). Once the indexes outgrow
 * what one checkpoint's span touches, nearly every insert writes a page: the
 * server's settings, not ivsync, then set a long backfill's pace.
 */
export interface WalCounters {
  bytes: number;
  fullPageImages: number;
  checkpoints: number;
  /** max_wal_size, checkpoint_timeout, shared_buffers, wal_compression as the server shows them. */
  settings: string;
}

export interface WalFigures {
  settings: string;
  kbPerItem: number;
  fullPageImagesPerItem: number;
  checkpoints: number;
}

const SETTINGS = ['max_wal_size', 'checkpoint_timeout', 'shared_buffers', 'wal_compression'];

/** The server's WAL counters (pg_stat_wal, PostgreSQL 14 or later; null before), server-wide, and its settings. */
export async function walCounters(url: string): Promise<WalCounters | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string; fpi: string; checkpoints: string; settings: string }>(
      'SELECT w.wal_bytes::text AS bytes, w.wal_fpi::text AS fpi, ' +
        '(b.checkpoints_timed + b.checkpoints_req)::text AS checkpoints, ' +
        "(SELECT string_agg(name || ' ' || current_setting(name), ', ' ORDER BY name) FROM pg_settings " +
        'WHERE name = ANY($1)) AS settings FROM pg_stat_wal w, pg_stat_bgwriter b',
      [SETTINGS],
    );
    const row = rows[0];
    return row === undefined
      ? null
      : {
          bytes: Number(row.bytes),
          fullPageImages: Number(row.fpi),
          checkpoints: Number(row.checkpoints),
          settings: row.settings,
        };
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

/** What the server wrote between two readings, per item, with its settings at the second. */
export function walFigures(
  before: WalCounters | null,
  after: WalCounters | null,
  items: number,
): WalFigures | undefined {
  if (before === null || after === null || items <= 0) return undefined;
  return {
    settings: after.settings,
    kbPerItem: (after.bytes - before.bytes) / 1024 / items,
    fullPageImagesPerItem: (after.fullPageImages - before.fullPageImages) / items,
    checkpoints: after.checkpoints - before.checkpoints,
  };
}

/** One line per Postgres run: its backfill's WAL, and the settings it ran under. */
export function walLines(runs: ReadonlyArray<{ sessions: number; wal?: WalFigures | undefined }>): string[] {
  return runs.flatMap((r) =>
    r.wal === undefined
      ? []
      : [
          `postgres ${r.sessions}: backfill WAL ${r.wal.kbPerItem.toFixed(1)} KB/item, ` +
            `${r.wal.fullPageImagesPerItem.toFixed(2)} full-page images/item, ${r.wal.checkpoints} checkpoints ` +
            `(server: ${r.wal.settings})`,
        ],
  );
}
