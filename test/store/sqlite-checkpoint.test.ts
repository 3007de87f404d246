import { MIGRATIONS } from '../../migrations/index.js';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { WAL_FLOOR_BYTES } from '../../src/store/drivers/wal-bound.js';
import { SqliteDriver, type SqliteDriverOptions } from '../../src/store/drivers/sqlite/sqlite-driver.js';
import { createSqlSink, type QueryableSink } from '../../src/store/sql-sink.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { auth, batch, t } from './fixtures.js';

const tempDir = useTempDir();

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
// pages into it; SQLite's autocheckpoint waits for 4096 WAL pages.
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
      await sink.mergeBatch(bulk(100));
      expect(statSync(`${path}-wal`).size).toBe(0);
      const before = statSync(path).size;
      await sink.mergeBatch(bulk(100, 100));
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
