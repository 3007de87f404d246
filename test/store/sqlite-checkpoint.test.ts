import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SqliteDriver, type SqliteDriverOptions } from '../../src/store/sqlite-driver.js';
import { createSqlSink, type QueryableSink } from '../../src/store/sql-sink.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { auth, batch, t } from './fixtures.js';

const tempDir = useTempDir();

async function open(path: string, checkpoint: SqliteDriverOptions['checkpoint']): Promise<QueryableSink> {
  const driver = await SqliteDriver.open(path, { checkpoint });
  await driver.migrate();
  return createSqlSink(driver, { clock: () => new Date(Date.UTC(2026, 0, 1)) });
}

/** 1,200 sessions with a text field each: 2,400 rows, a bulk commit. */
const bulk = () =>
  batch(Array.from({ length: 1200 }, (_, i) => auth(`s${i}`, { last_synced_at: t(1) }, { textFields: [{ service_id: `s${i}`, key: 'k', value: 'v' }] })));

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

  it('inline, the same commit stays in the WAL until the autocheckpoint size', async () => {
    const path = join(tempDir(), 'inline.sqlite');
    const sink = await open(path, 'inline');
    try {
      const before = statSync(path).size;
      await sink.mergeBatch(bulk());
      expect(statSync(path).size).toBe(before);
      expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
    } finally {
      await sink.close();
    }
  });
});
