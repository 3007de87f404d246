import type { Knex } from 'knex';
import type { NodeVersions } from './node-support.js';

/** How SqliteDriver.open opens a target (sqlite-driver.ts). */
export interface SqliteDriverOptions {
  /**
   * The Node this runs on: one too old for better-sqlite3's addon is refused
   * before anything is opened or created.
   * @default process.versions
   */
  nodeVersions?: NodeVersions;
  /**
   * How long a writer waits for another connection's write lock before failing.
   * @default 10000
   */
  busyTimeoutMs?: number;
  /** Where knex's own messages go. @default knex's console logging */
  knexLog?: Knex.Logger;
  /**
   * Page cache of the connection, in KiB. SQLite's own default (2 MiB) is
   * smaller than the indexes a backfill keeps touching; past it, every
   * insert into an index reads pages back from the file (from the OS page
   * cache, mostly). 8 MiB keeps a crawl within its memory budget; 16 and 64
   * MiB gained nothing measurable on a 100k session load.
   * @default 8192
   */
  cacheSizeKb?: number;
  /**
   * WAL bytes after which a commit folds the WAL back into the database file
   * itself (SQLite's autocheckpoint, set in pages of the file's own size).
   * Small commits (webhook deliveries) each write whole pages to the WAL, and
   * folding it in every 16 MiB of 16 KiB pages cost them a sixth of their
   * throughput; 64 MiB bound the WAL file. Bulk commits are folded in by
   * `checkpoint`, sooner, and any commit that leaves the WAL past a quarter of
   * the database file is folded in at once (`walPastBound`).
   * @default 67108864 (64 MiB)
   */
  walAutocheckpointBytes?: number;
  /**
   * Who folds the WAL back into the database file after a bulk commit (one
   * that wrote at least BULK_ROWS rows): `background`, a worker thread (see
   * sqlite-checkpointer.ts); `inline`, SQLite itself, inside the commit that
   * crosses `walAutocheckpointPages`, as after every small commit.
   * An in-memory database is always `inline`.
   * @default 'background'
   */
  checkpoint?: 'background' | 'inline';
}
