import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { fileSize, WAL_BOUND_ROWS, walOverBound } from '../wal-bound.js';

/**
 * The worker's whole program. It is handed over as text rather than as a file
 * of its own, so it runs the same from the built package and from the sources
 * the tests load; better-sqlite3 comes by the path resolved here.
 */
const WORKER_SOURCE =
  `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
let scheduled = false;
function checkpoint() {
  scheduled = false;
  // PASSIVE copies what it can and never waits for the writer or a reader.
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { parentPort.postMessage({ error: String(error && ` +
  `error.message) }); }
}
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  // Commits that arrive during a checkpoint are folded into one more.
  if (!scheduled) { scheduled = true; setImmediate(checkpoint); }
});
`;

/**
 * Folds a SQLite target's WAL back into the database file from a worker
 * thread with its own connection, right after a bulk commit, so that the copy
 * and its fsync run on another core while the writer goes on normalizing and
 * writing the next group: inside the commits, checkpoints took a fifth of a
 * backfill's time. A checkpoint that catches up before the next write
 * transaction lets SQLite restart the WAL from its beginning, which keeps it
 * small. During a backfill it rarely does (the writer commits again before
 * the copy ends), so the bound is `boundWal`'s, and SQLite's own
 * autocheckpoint if neither runs.
 */
export class BackgroundCheckpointer {
  readonly #worker: Worker;
  #failed: string | null = null;
  #exited = false;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (message: { error?: string }) => {
      if (message.error !== undefined) this.#failed = message.error;
    });
    worker.on('error', (error) => {
      this.#failed = error.message;
    });
    worker.on('exit', () => {
      this.#exited = true;
      this.#failed ??= 'the checkpoint worker ended';
    });
    // It must never keep the process alive on its own.
    worker.unref();
  }

  /** Starts the worker for the database file at `path` (it must exist). */
  static start(path: string): BackgroundCheckpointer {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    return new BackgroundCheckpointer(new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver } }));
  }

  /**
   * A bulk write committed: checkpoint soon. A failed worker is left alone; the autocheckpoint still bounds the WAL.
   */
  committed(): void {
    if (this.#failed === null) this.#worker.postMessage('commit');
  }

  /** Closes the worker's connection and waits for the worker to end. */
  async close(): Promise<void> {
    if (this.#exited) return;
    const ended = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
    this.#worker.postMessage('close');
    await ended;
  }
}

/**
 * Right after a write commit of at least WAL_BOUND_ROWS rows, on the writer's own connection: when the WAL of
 * the database at `path` is past its bound, folds it in and empties it
 * (TRUNCATE), before the next write transaction can add to it. The
 * background worker cannot do this itself: its checkpoint would have to wait
 * for the write lock, and the writer, committing every few milliseconds,
 * takes it back first. The WAL would then grow to SQLite's autocheckpoint (64
 * MiB beside a 7 MiB database), and a disk with room for the data fail.
 * A checkpoint that cannot run (the worker is copying, a reader holds an old
 * snapshot, the disk is full) leaves the WAL to the next commit: the commit
 * stands either way.
 */
export function boundWal(db: Pick<Database.Database, 'pragma'>, path: string, rowsWritten: number): void {
  if (rowsWritten < WAL_BOUND_ROWS || !walOverBound(fileSize(`${path}-wal`), fileSize(path))) return;
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // See above: the next commit tries again, and a full disk fails the next write with its own error.
  }
}
