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
// A TRUNCATE that a reader's snapshot holds up fails at once (the WAL is left to the next commit), as on the writer.
db.pragma('busy_timeout = 0');
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
  if (message === 'truncate') {
    // The writer waits for this answer before its next write transaction.
    try { db.pragma('wal_checkpoint(TRUNCATE)'); } catch {}
    parentPort.postMessage({ truncated: true });
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
  /** Ends the wait of the truncation asked for and not yet answered (one at a time: its caller waits for it). */
  #truncated: (() => void) | null = null;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (message: { error?: string; truncated?: true }) => {
      if (message.error !== undefined) this.#failed = message.error;
      if (message.truncated) this.#answer();
    });
    worker.on('error', (error) => {
      this.#failed = error.message;
    });
    worker.on('exit', () => {
      this.#exited = true;
      this.#failed ??= 'the checkpoint worker ended';
      // A truncation it will never answer: the writer goes on, its WAL left to the next commit.
      this.#answer();
    });
    // It must never keep the process alive on its own: only while an answer of its is awaited (see #awaiting).
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

  /**
   * Folds the WAL in and empties it (TRUNCATE) on the worker's connection, and resolves when that is done or could
   * not be; false when the worker has failed, and the caller must do it itself. The caller starts no write
   * transaction meanwhile: the checkpoint waits for none, and the writer's event loop goes on fetching and
   * normalizing instead of copying the WAL.
   */
  truncate(): Promise<boolean> {
    if (this.#failed !== null) return Promise.resolve(false);
    const answered = new Promise<boolean>((resolve) => (this.#truncated = () => resolve(true)));
    this.#worker.postMessage('truncate');
    return this.#awaiting(answered);
  }

  #answer(): void {
    this.#truncated?.();
    this.#truncated = null;
  }

  /** Closes the worker's connection and waits for the worker to end. */
  async close(): Promise<void> {
    if (this.#exited) return;
    const ended = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
    this.#worker.postMessage('close');
    await this.#awaiting(ended);
  }

  /**
   * `answer`, with the worker holding the event loop open until it comes. An unreferenced worker's message does
   * not: a writer whose every other task waits for this commit (a crawl's streams do) would leave the event loop
   * empty, and Node would end the process with its work unsettled (exit code 13).
   */
  async #awaiting<T>(answer: Promise<T>): Promise<T> {
    this.#worker.ref();
    try {
      return await answer;
    } finally {
      this.#worker.unref();
    }
  }
}

/**
 * Whether a write commit of `rowsWritten` rows left the WAL of the database at `path` past its bound: then it is
 * folded in and emptied (TRUNCATE) before the next write transaction can add to it, by the worker while the
 * writer waits (`truncate`), or on the writer's own connection (`truncateWal`). The worker's own checkpoints
 * cannot bound it: they would have to wait for the write lock, and the writer, committing every few
 * milliseconds, takes it back first. The WAL would then grow to SQLite's autocheckpoint (64 MiB beside a 7 MiB
 * database), and a disk with room for the data fail. Only a commit of at least WAL_BOUND_ROWS rows is checked.
 */
export function walPastBound(path: string, rowsWritten: number): boolean {
  return rowsWritten >= WAL_BOUND_ROWS && walOverBound(fileSize(`${path}-wal`), fileSize(path));
}

/**
 * Folds the WAL in and empties it on `db`. A checkpoint that cannot run (a reader holds an old snapshot, the disk
 * is full) leaves the WAL to the next commit: the commit stands either way, and a full disk fails the next write
 * with its own error.
 */
export function truncateWal(db: Pick<Database.Database, 'pragma'>): void {
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // See above.
  }
}
