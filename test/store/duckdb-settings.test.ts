import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSink } from '../../src/store/open-sink.js';
import { useTempDir } from '../helpers/temp-dir.js';

/*
 * A DuckDB target is opened with a bounded buffer pool: DuckDB's own default
 * (80% of the machine's memory) lets a process's RSS follow the size of the
 * tables. The settings are read back from DuckDB itself.
 */

const tempDir = useTempDir();

describe('DuckDB target settings', () => {
  it('bounds the buffer pool and the threads, and drops the insertion-order promise', async () => {
    const sink = await openSink(`duckdb:${join(tempDir(), 'bounded.duckdb')}`);
    try {
      const [row] = await sink.query(
        "SELECT current_setting('memory_limit') AS memory_limit, current_setting('threads') AS threads, current_setting('preserve_insertion_order') AS ordered, current_setting('checkpoint_threshold') AS checkpoint",
      );
      // DuckDB prints the limit in MiB of its own rounding: 96 MB reads back as 91.5 MiB.
      expect(row?.memory_limit).toMatch(/^9\d(\.\d)? MiB$/);
      expect(Number(row?.threads)).toBe(1);
      expect(row?.ordered).toBe(false);
      // 16 MB: un-checkpointed rows, held uncompressed in the pool, stay a fraction of it.
      expect(row?.checkpoint).toMatch(/^1[56](\.\d)? MiB$/);
    } finally {
      await sink.close();
    }
  });
});
