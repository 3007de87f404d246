import { MIGRATIONS } from '../../migrations/index.js';
import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { WAL_FLOOR_BYTES } from '../../src/store/drivers/wal-bound.js';
import { SqliteDriver, type SqliteDriverOptions } from '../../src/store/drivers/sqlite/sqlite-driver.js';
import { createSqlSink, type QueryableSink } from '../../src/store/sql-sink.js';
import { spawnChild } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { auth, batch, t } from './fixtures.js';

const tempDir = useTempDir();
const REPO = fileURLToPath(new URL('../../', import.meta.url));

async function open(path: string, checkpoint: SqliteDriverOptions['checkpoint']): Promise<QueryableSink> {
  const driver = await SqliteDriver.open(path, { checkpoint });
  await driver.migrate(MIGRATIONS);
  return createSqlSink(driver, { clock: () => new Date(Date.UTC(2026, 0, 1)), migrations: MIGRATIONS });
}

/** `n` sessions with a text field each; 1,200 of them (2,400 rows) are a bulk commit. */
const bulk = (n = 1200, first = 0) =>
  batch(
    Array.from({ length: n }, (_, k) => {
      const id = `s${first + k}`;
      return auth(id, { last_synced_at: t(1) }, { textFields: [{ service_id: id, key: 'k', value: 'v' }] });
    }),
  );

// In WAL mode the database file itself only grows when a checkpoint copies
// pages into it; SQLite's autocheckpoint waits for 64 MiB of WAL.
describe('SQLite checkpoints', () => {
  it('a bulk commit is folded into the database file by the background worker', async () => {
    const path = join(tempDir(), 'background.sqlite');
    const sink = await open(path, 'background');
    try {
      const before = statSync(path).size;
      await sink.mergeBatch(bulk());
      await vi.waitFor(() => expect(statSync(path).size).toBeGreaterThan(before), { timeout: 10_000, interval: 10 });
    } finally {
      await sink.close();
    }
    // Both connections are closed: the last one folded the rest in and removed the WAL.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = await open(path, 'background');
    try {
      expect(await reopened.query('SELECT COUNT(*) AS n FROM session_text_fields')).toEqual([{ n: 1200 }]);
    } finally {
      await reopened.close();
    }
  });

  it('inline, a commit that leaves the WAL within its bound stays there until the autocheckpoint size', async () => {
    const path = join(tempDir(), 'inline.sqlite');
    const sink = await open(path, 'inline');
    try {
      // The first commit folds the migrations' pages in with its own (past the bound beside an empty file).
      await sink.mergeBatch(bulk());
      expect(statSync(`${path}-wal`).size).toBe(0);
      const before = statSync(path).size;
      await sink.mergeBatch(bulk(100, 1200));
      expect(statSync(`${path}-wal`).size).toBeLessThan(WAL_FLOOR_BYTES);
      expect(statSync(path).size).toBe(before);
      expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
    } finally {
      await sink.close();
    }
  });

  // Otherwise a backfill's WAL grew to the autocheckpoint size, 64 MiB beside a 7 MiB file.
  it.each([['inline'], ['background']] as const)(
    '%s: a commit that leaves the WAL past its bound is folded in and the WAL emptied before the call returns',
    async (checkpoint) => {
      const path = join(tempDir(), `${checkpoint}.sqlite`);
      const sink = await open(path, checkpoint);
      try {
        const before = statSync(path).size;
        await sink.mergeBatch(bulk(4000));
        expect(statSync(path).size).toBeGreaterThan(before + WAL_FLOOR_BYTES);
        expect(statSync(`${path}-wal`).size).toBe(0);
        expect(await sink.query('SELECT COUNT(*) AS n FROM session_text_fields')).toEqual([{ n: 4000 }]);
      } finally {
        await sink.close();
      }
    },
  );
});

/** The page size of the database file at `path`, read by a connection of its own. */
function pageSize(path: string): unknown {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('page_size', { simple: true });
  } finally {
    db.close();
  }
}

// A new target takes 4 KiB pages; one made with 16 KiB pages (as earlier releases made them) keeps them, and
// its autocheckpoint stays at the same 64 MiB of WAL, a quarter as many pages.
describe('SQLite page size', () => {
  it('a new target is made with 4 KiB pages, and the autocheckpoint is 64 MiB of them', async () => {
    const path = join(tempDir(), 'new.sqlite');
    const sink = await open(path, 'background');
    try {
      await sink.mergeBatch(bulk());
      expect(await sink.query('PRAGMA wal_autocheckpoint')).toEqual([{ wal_autocheckpoint: 16_384 }]);
    } finally {
      await sink.close();
    }
    expect(pageSize(path)).toBe(4096);
  });

  it('a target made with 16 KiB pages keeps them through migrations and bulk commits', async () => {
    const path = join(tempDir(), 'old.sqlite');
    const made = new Database(path);
    made.pragma('page_size = 16384');
    made.pragma('journal_mode = WAL');
    made.close();
    const sink = await open(path, 'background');
    try {
      await sink.mergeBatch(bulk(4000));
      expect(await sink.query('PRAGMA wal_autocheckpoint')).toEqual([{ wal_autocheckpoint: 4096 }]);
      expect(await sink.query('SELECT COUNT(*) AS n FROM session_text_fields')).toEqual([{ n: 4000 }]);
    } finally {
      await sink.close();
    }
    expect(pageSize(path)).toBe(16_384);
  });
});

// The worker is unreferenced so that it never keeps a process alive on its own. A writer whose every other task
// waits for its answer (a crawl's streams wait for the commit) must still get it: Node ends a process whose event
// loop is empty with its work unsettled (exit code 13), and a backfill of 40 accounts did.
describe('SQLite checkpoint worker, alone in a process', () => {
  const CHILD = `
import Database from 'better-sqlite3';
import { BackgroundCheckpointer } from './dist/src/store/drivers/sqlite/sqlite-checkpointer.js';
const path = process.argv[1];
const db = new Database(path);
db.pragma('journal_mode = WAL');
db.exec('CREATE TABLE t (v TEXT)');
const insert = db.prepare('INSERT INTO t VALUES (?)');
db.transaction(() => { for (let k = 0; k < 5000; k += 1) insert.run('v'.repeat(100)); })();
const worker = BackgroundCheckpointer.start(path);
worker.committed();
const truncated = await worker.truncate();
await worker.close();
db.close();
process.stdout.write(JSON.stringify({ truncated }));
`;

  it('answers a truncation and closes while nothing else holds the event loop open', async () => {
    const path = join(tempDir(), 'alone.sqlite');
    const child = spawnChild(
      process.execPath,
      ['--input-type=module', '-e', CHILD, path],
      { PATH: process.env.PATH },
      REPO,
    );
    const { code, stdout, stderr } = await child.exited;
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: JSON.stringify({ truncated: true }), stderr: '' });
    expect(existsSync(`${path}-wal`)).toBe(false);
  });
});
