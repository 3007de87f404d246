import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RETURN_FREED_MEMORY } from '../../src/store/drivers/duckdb/duckdb-allocator.js';
import { openSink } from '../../src/store/open-sink.js';
import { MAIN, spawnChild } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

/*
 * DuckDB's library brings its own jemalloc, which takes its options from the
 * environment when the library loads; with DuckDB's own it kept what DuckDB
 * freed for up to two seconds (src/store/drivers/duckdb/duckdb-allocator.ts).
 * Each command that loads DuckDB runs as a child process with a preload that
 * records the options in the environment at each load of a native library.
 */

const RECORDER = fileURLToPath(new URL('../fixtures/duckdb-allocator/record-dlopen.mjs', import.meta.url));

/** The allocator's options DuckDB's library was loaded with, or undefined when the command did not load it. */
async function duckdbLoadedWith(
  dir: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; conf: string | null | undefined }> {
  const file = join(dir, 'dlopen.jsonl');
  writeFileSync(file, '');
  const child = spawnChild(
    process.execPath,
    ['--import', RECORDER, MAIN, ...args],
    { PATH: process.env.PATH, IVS_LOG_LEVEL: 'error', IVS_TEST_DLOPEN_FILE: file, ...env },
    dir,
  );
  const { code } = await child.exited;
  const loads = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { filename: string; conf: string | null });
  return { code, conf: loads.find((load) => load.filename.includes('@duckdb'))?.conf };
}

/** No service: the command opens (and makes) its target, then fails at its first request. */
const NO_SERVICE = { IVS_API_TOKEN: 'test-token', IVS_BASE_URL: 'http://127.0.0.1:9' };

describe("DuckDB's allocator", () => {
  const tempDir = useTempDir();

  it('a sync into a DuckDB target loads DuckDB told to hand freed memory back promptly', async () => {
    const dir = tempDir();
    const { conf } = await duckdbLoadedWith(dir, ['sync', '--since', '2026-01-01'], {
      ...NO_SERVICE,
      IVS_DB: `duckdb:${join(dir, 'ivsync.duckdb')}`,
    });
    expect(conf).toBe(RETURN_FREED_MEMORY);
  });

  it('so do a query of a DuckDB target, an export of a SQLite one and a query of that export', async () => {
    const dir = tempDir();
    const duckdb = `duckdb:${join(dir, 'ivsync.duckdb')}`;
    await (await openSink(duckdb)).close();
    const queried = await duckdbLoadedWith(dir, ['query', 'SELECT 1 AS one'], { IVS_DB: duckdb });
    expect(queried.code).toBe(0);
    expect(queried.conf).toBe(RETURN_FREED_MEMORY);
    const sqlite = `sqlite:${join(dir, 'ivsync.sqlite')}`;
    await (await openSink(sqlite)).close();
    const exported = await duckdbLoadedWith(dir, ['export', '--to', `parquet:${join(dir, 'parquet')}`], {
      IVS_DB: sqlite,
    });
    expect(exported.code).toBe(0);
    expect(exported.conf).toBe(RETURN_FREED_MEMORY);
    const parquet = await duckdbLoadedWith(
      dir,
      ['query', '--db', `parquet:${join(dir, 'parquet')}`, 'SELECT 1 AS one'],
      {},
    );
    expect(parquet.code).toBe(0);
    expect(parquet.conf).toBe(RETURN_FREED_MEMORY);
  });

  it("keeps the options the operator's environment sets", async () => {
    const dir = tempDir();
    const { conf } = await duckdbLoadedWith(dir, ['sync', '--since', '2026-01-01'], {
      ...NO_SERVICE,
      IVS_DB: `duckdb:${join(dir, 'ivsync.duckdb')}`,
      DUCKDB_JE_MALLOC_CONF: 'dirty_decay_ms:500',
    });
    expect(conf).toBe('dirty_decay_ms:500');
  });

  it('a SQLite target does not load DuckDB at all', async () => {
    const dir = tempDir();
    const { conf } = await duckdbLoadedWith(dir, ['sync', '--since', '2026-01-01'], {
      ...NO_SERVICE,
      IVS_DB: `sqlite:${join(dir, 'ivsync.sqlite')}`,
    });
    expect(conf).toBeUndefined();
  });
});
