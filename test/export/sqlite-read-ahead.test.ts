import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openSink } from '../../src/store/open-sink.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { StoreError } from '../../src/store/drivers/store-error.js';
import { keysetRead } from '../../src/store/export/keyset-page.js';
import { table } from '../../src/schema/schema.js';
import { runIvsync, spawnIvsync } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { comparableRows, duckdbRows } from './relation-rows.js';

const tempDir = useTempDir();

/**
 * A SQLite target's tables read for an export on a worker thread, one chunk
 * ahead (sqlite-read-ahead.ts): through the sink, on a real file filled by a
 * backfill against the simulator, and through the built CLI as a child
 * process, which must end once the export is done.
 */
describe('an export reads a SQLite file on a worker thread, a chunk ahead', () => {
  let sim: RunningSimulator;
  let db: string;
  // The target's, kept for every test of the file (a tempDir() is removed after each test).
  let dir: string;

  beforeAll(async () => {
    sim = await startSimulator({ sessions: 80, rate: 2000, burst: 2000, seed: 5 });
    dir = mkdtempSync(join(tmpdir(), 'ivsync-test-'));
    db = `sqlite:${join(dir, 'target.sqlite')}`;
    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: db, IVS_CONFIG: writeConfig(dir) };
    const backfill = await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env);
    expect(backfill.code).toBe(0);
  });
  afterAll(async () => {
    await sim?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** Every row `read` gives, with the chunk sizes it came in. */
  async function readAll(sink: QueryableSink, name: string, chunkRows: number) {
    const rows: unknown[][] = [];
    const sizes: number[] = [];
    for await (const chunk of sink.keysetChunks!(keysetRead(table(name), chunkRows))) {
      sizes.push(chunk.length);
      rows.push(...chunk);
    }
    return { rows, sizes };
  }

  it('gives every row once, in key order, as arrays of the columns, whatever the chunk size', async () => {
    const sink = (await openSink(db, { existing: true })) as QueryableSink;
    try {
      expect(sink.keysetChunks).toBeTypeOf('function');
      for (const name of ['authentications', 'session_text_fields', 'sync_windows']) {
        const def = table(name);
        const columns = def.columns.map((c) => c.name);
        const expected = (
          await sink.query(`SELECT ${columns.join(', ')} FROM ${name} ORDER BY ${def.primaryKey.join(', ')}`)
        ).map((row) => columns.map((c) => row[c]));
        expect(expected.length, name).toBeGreaterThan(6);
        const { rows, sizes } = await readAll(sink, name, 4);
        expect(rows, name).toEqual(expected);
        expect(
          sizes.slice(0, -1).every((n) => n === 4),
          name,
        ).toBe(true);
        expect(sizes.at(-1), name).toBeLessThanOrEqual(4);
      }
    } finally {
      await sink.close();
    }
  });

  it('starts the next read afresh after one the caller left early, and after one that failed', async () => {
    const sink = (await openSink(db, { existing: true })) as QueryableSink;
    try {
      const whole = await readAll(sink, 'authentications', 5);
      expect(whole.rows.length).toBeGreaterThan(10);
      // Left after its first chunk: the chunk read ahead for it is dropped, not handed to the next read.
      for await (const chunk of sink.keysetChunks!(keysetRead(table('authentications'), 5))) {
        expect(chunk).toEqual(whole.rows.slice(0, 5));
        break;
      }
      const failing = sink.keysetChunks!({
        first: 'SELECT * FROM no_such_table',
        next: 'SELECT 1',
        keyAt: [],
        chunkRows: 5,
      });
      const failure = await (async () => {
        for await (const chunk of failing) void chunk;
      })().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreError);
      expect((failure as StoreError).message).toMatch(/^sqlite failed \(SQLITE_ERROR\)/);
      expect((await readAll(sink, 'authentications', 7)).rows).toEqual(whole.rows);
    } finally {
      await sink.close();
    }
  });

  it('ends its worker before the target closes: the last connection folds the WAL in and removes it', async () => {
    const file = db.slice('sqlite:'.length);
    for (const idle of [false, true]) {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        const sink = (await openSink(db, { existing: true })) as QueryableSink;
        try {
          expect((await readAll(sink, 'sync_windows', 3)).rows.length).toBeGreaterThan(3);
          expect(existsSync(`${file}-wal`)).toBe(true);
          // Idle: the worker has been told to end a second after the read, and may not have ended yet.
          if (idle) vi.advanceTimersByTime(1_000);
        } finally {
          vi.useRealTimers();
          await sink.close();
        }
        expect(existsSync(`${file}-wal`), `idle: ${idle}`).toBe(false);
      } finally {
        vi.useRealTimers();
      }
    }
  });

  it('lets the CLI export end on its own, every row in the copy', async () => {
    const out = join(tempDir(), 'copy.duckdb');
    const child = spawnIvsync(['export', '--db', db, '--to', `duckdb:${out}`, '--json'], {});
    const { code, stderr } = await child.exited;
    expect(code, stderr).toBe(0);
    const sink = (await openSink(db, { existing: true })) as QueryableSink;
    try {
      for (const name of ['authentications', 'fingerprints', 'session_text_fields', 'sync_windows']) {
        const def = table(name);
        const expected = comparableRows(def, await sink.query(`SELECT * FROM ${name}`));
        expect(expected.length, name).toBeGreaterThan(0);
        expect(comparableRows(def, await duckdbRows(out, `SELECT * FROM ${name}`)), name).toEqual(expected);
      }
    } finally {
      await sink.close();
    }
  });
});
