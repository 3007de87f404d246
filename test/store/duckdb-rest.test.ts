import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSink } from '../../src/store/open-sink.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { t } from './fixtures.js';

/** Bytes of the file's WAL: 0 when DuckDB folded it in (it removes or empties it). */
const walBytes = (file: string) => (existsSync(`${file}.wal`) ? statSync(`${file}.wal`).size : 0);

describe("a DuckDB target between the daemon's ticks", () => {
  const tempDir = useTempDir();

  it('rest folds the WAL into the file and opens it anew: every commit kept, the target writable', async () => {
    const file = join(tempDir(), 'ivsync.duckdb');
    const sink = await openSink(`duckdb:${file}`);
    try {
      await sink.acquireLease('account:a', 'A', 60, t(0));
      expect(walBytes(file)).toBeGreaterThan(0);
      await sink.rest!();
      expect(walBytes(file)).toBe(0);
      expect((await sink.leases()).map((l) => l.name)).toEqual(['account:a']);
      await sink.acquireLease('account:b', 'A', 60, t(1));
      expect((await sink.leases()).map((l) => l.name).sort()).toEqual(['account:a', 'account:b']);
    } finally {
      await sink.close();
    }
    // What was committed after the rest is in the file as well.
    const again = await openSink(`duckdb:${file}`);
    try {
      expect((await again.leases()).map((l) => l.name).sort()).toEqual(['account:a', 'account:b']);
    } finally {
      await again.close();
    }
  });

  it('is nothing for SQLite and Postgres', async () => {
    const sink = await openSink(`sqlite:${join(tempDir(), 'ivsync.sqlite')}`);
    try {
      await sink.acquireLease('account:a', 'A', 60, t(0));
      await sink.rest!();
      expect((await sink.leases()).map((l) => l.name)).toEqual(['account:a']);
    } finally {
      await sink.close();
    }
  });
});
