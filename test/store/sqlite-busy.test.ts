import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSink } from '../../src/store/open-sink.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

describe('a SQLite target another process is writing to', () => {
  it('opens and answers status while the other holds the write lock', async () => {
    const path = join(tempDir(), 'busy.sqlite');
    await (await openSink(`sqlite:${path}`)).close();

    // Another process in the middle of a write transaction (a backfill committing a page).
    const writer = new Database(path);
    writer.pragma('journal_mode = WAL');
    writer.exec('BEGIN IMMEDIATE');
    writer
      .prepare(
        "INSERT INTO sync_runs (id, command, started_at, status, requests, items_written) VALUES ('w', " +
          "'backfill', 'x', 'running', 0, 0)",
      )
      .run();
    try {
      const sink = await openSink(`sqlite:${path}`);
      try {
        const report = await sink.status();
        expect(report.tables.sync_runs).toBe(0);
      } finally {
        await sink.close();
      }
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });
});
