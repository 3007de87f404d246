import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { exportTarget } from '../../src/store/export/export.js';
import { parseExportTarget } from '../../src/store/export/export-target.js';
import { openSink } from '../../src/store/open-sink.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { TABLES } from '../../src/schema/schema.js';
import { VIEWS } from '../../src/store/views.js';
import { cliError, runIvsync } from '../helpers/run-cli.js';
import { sqliteCliEnv, useTempDir } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';

const tempDir = useTempDir();

/** Every file under `dir` with a digest of its bytes: what a stopped export must leave as it found it. */
function contents(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path.slice(dir.length + 1)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return files;
}

describe('an export stopped by its signal', () => {
  let sim: RunningSimulator;
  let sourceDir: string;
  let db: string;
  let sink: QueryableSink;

  beforeAll(async () => {
    sim = await startSimulator({ sessions: 300, rate: 5000, burst: 5000, seed: 11 });
    sourceDir = mkdtempSync(join(tmpdir(), 'ivsync-test-'));
    const cli = sqliteCliEnv(sim.url, sourceDir);
    db = `sqlite:${cli.db}`;
    const backfill = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];
    expect((await runIvsync(backfill, cli.env)).code).toBe(0);
    sink = await openSink(db, { existing: true });
  });
  afterAll(async () => {
    await sink?.close();
    await sim?.close();
    rmSync(sourceDir, { recursive: true, force: true });
  });

  // Where the stop comes: before the first chunk, while a table is copied, and while a view's pieces are written.
  const stops = [
    ['before it starts', undefined],
    ['after its first table', TABLES[0]!.name],
    ['after its last table', TABLES[TABLES.length - 1]!.name],
    ['after its first view', VIEWS[0]!.name],
  ] as const;

  describe.each(['duckdb', 'parquet'] as const)('to %s', (kind) => {
    it.each(stops)('%s: ends interrupted, and leaves an earlier export as it was', async (_, after) => {
      const dir = tempDir();
      const to = parseExportTarget(kind === 'duckdb' ? `duckdb:${join(dir, 'copy.duckdb')}` : `parquet:${dir}`);
      const source = sink;
      await exportTarget(source, to);
      const before = contents(dir);
      expect(Object.keys(before).length).toBe(kind === 'duckdb' ? 1 : TABLES.length + VIEWS.length);

      const stop = new AbortController();
      if (after === undefined) stop.abort();
      const exported = exportTarget(source, to, {
        force: true,
        // Small pieces: the views run many statements, and the stop lands in one of them or between two.
        viewPieceRows: 50,
        signal: stop.signal,
        // Once the call stack unwinds: the next table's chunks, or the next view's statement, are under way.
        onProgress: (r) => void (r.name === after && setImmediate(() => stop.abort())),
      });
      await expect(exported).rejects.toThrow(InterruptedError);
      // Nothing of the stopped export is left: no partial file, no staging file, no spill directory.
      expect(contents(dir)).toEqual(before);
    });
  });

  it('the CLI stops on its signal with exit 3 and one line, and writes nothing', async () => {
    const dir = tempDir();
    const stop = new AbortController();
    stop.abort();
    const result = await runIvsync(['export', '--db', db, '--to', `parquet:${dir}`, '--json'], {}, stop.signal);
    expect(result.code).toBe(3);
    expect(cliError(result.stderr)).toMatchObject({ code: 'INTERRUPTED' });
    expect(readdirSync(dir)).toEqual([]);
  });
});
