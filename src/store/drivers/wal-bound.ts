import { statSync } from 'node:fs';

/*
 * How large a target's write-ahead log may grow beside its database file,
 * for SQLite and DuckDB alike: the disk a backfill needs is the file plus
 * its WAL, and a disk with room for the data must be enough.
 */

/** WAL bytes below which the WAL is left to grow, whatever the size of the database. */
export const WAL_FLOOR_BYTES = 1024 * 1024;

/**
 * Share of the database file the WAL may reach before the driver folds it into the file and empties it.
 * Peak disk is then about the file, this share of it, and the one group
 * commit that crossed the bound: within 1.5 times the file. A bound that
 * grows with the file keeps the blocking checkpoints few (a few dozen in a
 * backfill of any size).
 */
export const WAL_SHARE = 0.25;

/**
 * Rows a write transaction must have written for the bound to be checked
 * after its commit: a page of a crawl (up to 25 items, each a row or more),
 * not a webhook delivery (an item or a few). Emptying the WAL every few dozen
 * deliveries cut the receiver's throughput by half or more; their WAL stays
 * bounded by SQLite's autocheckpoint, and the next page that commits brings
 * it back within this bound.
 */
export const WAL_BOUND_ROWS = 20;

/** Whether a WAL of `walBytes` beside a database file of `fileBytes` is past the bound. */
export function walOverBound(walBytes: number, fileBytes: number): boolean {
  return walBytes > Math.max(WAL_FLOOR_BYTES, fileBytes * WAL_SHARE);
}

/** A file's size in bytes, 0 when it does not exist (a WAL between two runs). */
export function fileSize(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}
