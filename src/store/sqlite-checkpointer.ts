import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The worker's whole program. It is handed over as text rather than as a file
 * of its own, so it runs the same from the built package and from the sources
 * the tests load; better-sqlite3 comes by the path resolved here.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
let scheduled = false;
function checkpoint() {
  scheduled = false;
  // PASSIVE copies what it can and never waits for the writer or a reader.
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { parentPort.postMessage({ error: String(error && error.message) }); }
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
 * small; SQLite's own autocheckpoint stays on as the bound if it does not.
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

  /** A bulk write committed: checkpoint soon. A failed worker is left alone; the autocheckpoint still bounds the WAL. */
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
