import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { KeysetRead } from '../sql-driver.js';

/**
 * The worker's whole program, handed over as text so that it runs the same
 * from the built package and from the sources the tests load (as
 * sqlite-checkpointer.ts does). It reads the chunks of one table at a time,
 * each chunk its own statement (its own read transaction), and reads the next
 * only when asked: one chunk ahead of the reader, never more.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
// This thread is the only one a wait would hold: a reader that meets a WAL being recovered waits here.
db.pragma('busy_timeout = 10000');
let read = null;
function failed(id, error) {
  const code = error && typeof error.code === 'string' ? error.code : undefined;
  parentPort.postMessage({ id, error: String((error && error.message) || error), code });
}
function next() {
  const r = read;
  try {
    const rows = r.after === null ? r.first.all() : r.next.all(...r.after);
    const done = rows.length < r.chunkRows;
    if (!done) r.after = r.keyAt.map((i) => rows[rows.length - 1][i]);
    parentPort.postMessage({ id: r.id, rows, done });
  } catch (error) {
    failed(r.id, error);
  }
}
parentPort.on('message', (message) => {
  if (message.close) { db.close(); parentPort.close(); return; }
  if (message.start) {
    const s = message.start;
    try {
      read = { id: message.id, first: db.prepare(s.first).raw(true), next: db.prepare(s.next).raw(true),
        chunkRows: s.chunkRows, keyAt: s.keyAt, after: null };
    } catch (error) {
      failed(message.id, error);
      return;
    }
  }
  if (read !== null && read.id === message.id) next();
});
`;

interface Answer {
  id: number;
  rows?: unknown[][];
  done?: boolean;
  error?: string;
  /** better-sqlite3's code of the error (SQLITE_BUSY, …), which store-error.ts reads. */
  code?: string;
}

/** The worker's error as this thread's, with its code. */
function errorOf(answer: Answer): Error {
  return Object.assign(new Error(answer.error), answer.code === undefined ? {} : { code: answer.code });
}

/**
 * How long the worker stays after a read ends: the tables of an export come
 * one after another, and it starts in some tens of milliseconds; once they
 * are read, its heap is given back before the export's views run.
 */
const IDLE_MS = 1_000;

/**
 * Reads a SQLite target's tables in primary key order on a worker thread
 * with a read-only connection of its own, one chunk ahead of the caller: an
 * export then reads the next chunk on the other core while it appends this
 * one to DuckDB. Rows come as arrays (better-sqlite3's raw rows), which cost
 * less to make and to pass between threads than objects. One table is read at
 * a time. The worker starts with a read and ends a second after the last, and
 * never keeps the process alive on its own.
 */
export class SqliteReadAhead {
  readonly #path: string;
  #worker: Worker | null = null;
  #idle: NodeJS.Timeout | null = null;
  #reads = 0;
  #reading = false;
  /** The worker last told to end, until it has. */
  #ending: { worker: Worker; exited: Promise<void> } | null = null;
  /** The answer awaited, at most one. */
  #waiting: { id: number; settle: (answer: Answer) => void } | null = null;

  /** For the database file at `path` (it must exist when a read starts). */
  constructor(path: string) {
    this.#path = path;
  }

  /** The rows `read` pages through, as arrays, a chunk at a time (SqlDriver.keysetChunks). */
  async *chunks(read: KeysetRead): AsyncGenerator<unknown[][]> {
    if (this.#reading) throw new Error('SqliteReadAhead reads one table at a time');
    this.#reading = true;
    const worker = this.#started();
    try {
      const id = ++this.#reads;
      const { first, next, chunkRows, keyAt } = read;
      let pending = this.#ask(worker, id, { id, start: { first, next, chunkRows, keyAt } });
      for (;;) {
        const answer = await pending;
        if (answer.error !== undefined) throw errorOf(answer);
        // The next chunk is read while the caller takes this one.
        if (answer.done !== true) pending = this.#ask(worker, id, { id });
        yield answer.rows!;
        if (answer.done === true) return;
      }
    } finally {
      // A chunk asked for and not taken is dropped when it comes (its id is no longer awaited).
      this.#waiting = null;
      worker.unref();
      this.#reading = false;
      this.#idle = setTimeout(() => this.#stop(), IDLE_MS).unref();
    }
  }

  /** Ends the worker and waits for its end, so that its connection is closed before the caller's own. */
  async close(): Promise<void> {
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.#idle = null;
    this.#stop();
    const ending = this.#ending;
    if (ending === null) return;
    // Awaited: the process waits for the worker's end.
    ending.worker.ref();
    await ending.exited;
  }

  /** The worker, started if there is none. */
  #started(): Worker {
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.#idle = null;
    if (this.#worker !== null) return this.#worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path: this.#path } });
    worker.on('message', (answer: Answer) => {
      const waiting = this.#waiting;
      if (waiting === null || waiting.id !== answer.id) return;
      this.#waiting = null;
      waiting.settle(answer);
    });
    const fail = (error: Error) => {
      // The next read starts another.
      if (this.#worker === worker) this.#worker = null;
      const waiting = this.#waiting;
      this.#waiting = null;
      waiting?.settle({ id: waiting.id, error: error.message });
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the SQLite read-ahead worker ended')));
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  /** Tells the worker to end, without waiting for it. */
  #stop(): void {
    const worker = this.#worker;
    if (worker === null) return;
    this.#worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const ending = { worker, exited };
    this.#ending = ending;
    void exited.then(() => {
      if (this.#ending === ending) this.#ending = null;
    });
    worker.postMessage({ close: true });
  }

  #ask(worker: Worker, id: number, message: unknown): Promise<Answer> {
    if (this.#worker !== worker) return Promise.resolve({ id, error: 'the SQLite read-ahead worker ended' });
    return new Promise((settle) => {
      this.#waiting = { id, settle };
      // Awaited: the process waits for the answer.
      worker.ref();
      worker.postMessage(message);
    });
  }
}
