import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { InterruptedError } from '../../../errors.js';
import { TargetLockedError } from '../target-locked-error.js';

/** How a file is opened: the wait for another process that holds it (see DuckdbDriverOptions.wait). */
export type OpenWait = { signal: AbortSignal; onWait?: (holder: string) => void } | undefined;

/** DuckDB's refusal to open a file another process holds; the holder is what follows `held in`. */
const LOCK_CONFLICT = /Could not set lock on file .*?Conflicting lock is held in (.+?)\.(?: See also|\s*$)/s;

/** Longest pause between two attempts to open a locked file. */
const LOCK_POLL_MAX_MS = 1000;

/**
 * The holder named by DuckDB's refusal to open a file another process holds, or null when `error` is another failure.
 */
export function lockHolder(error: unknown): string | null {
  const match = LOCK_CONFLICT.exec(error instanceof Error ? error.message : String(error));
  return match === null ? null : match[1]!.trim();
}

/**
 * Rows per row group of a target's tables, instead of DuckDB's 122,880. A
 * checkpoint rewrites every row group that took rows since the last one, and
 * the compressed blocks of each table it rewrites wait in the buffer pool
 * until it ends: with whole 122,880-row groups of sessions (each with its raw
 * item) that was more than the pool, spilled to the temp directory (a
 * 250k-session ingest peaked at 454 MB RSS; 370 MB with 16,384). In
 * STORAGE_VERSION's format checkpoints no longer hold memory per row group
 * of the history, and 8,192 rows halve each checkpoint's rewrite: a process writing on into a 10M-session
 * file peaked at 322–325 MB against 348–349 with 16,384, and a 10M backfill
 * (with V8's semi-space at 8 MB) at 408 MB against 435, 10% faster
 * (docs/benchmarks.md, "DuckDB's file format").
 */
export const ROW_GROUP_ROWS = 8_192;

/**
 * The storage format of a file ivsync creates: DuckDB 1.4's, which DuckDB 1.4
 * and later open, where DuckDB's default is still 1.0's. With 1.0's, each
 * checkpoint after an instance's first held memory for every row group of
 * the tables it wrote, however many of them were unchanged: a process that
 * went on writing to a file of 10M sessions (about 3,100 row groups) sat
 * some 80 MB above one writing to a file of 1M, and peaked at 467 MB
 * against 343 MB with 1.4's format, in 62 s against 44 for the same 300,000
 * sessions (docs/benchmarks.md, "DuckDB's file format"). 1.3's format
 * peaked at 434 MB. A file that exists keeps the format it was made in.
 */
export const STORAGE_VERSION = 'v1.4.0';

/** The catalog a file is attached as: its name, as DuckDB would name it, unless that is one of DuckDB's own. */
function catalogName(path: string): string {
  const stem = basename(path).replace(/\.[^.]*$/, '');
  return ['memory', 'temp', 'system', 'main', ''].includes(stem.toLowerCase()) ? 'ivsync' : stem;
}

const quoted = (name: string, quote: string): string => `${quote}${name.replaceAll(quote, quote + quote)}${quote}`;

/**
 * Opens the database: in memory as is, a file attached with ROW_GROUP_SIZE
 * (an option of ATTACH only, which a database opened by path cannot take),
 * created in STORAGE_VERSION's format when it does not exist yet, and made
 * the default catalog. Waits while another process holds the file when
 * asked to (see DuckdbDriverOptions.wait).
 */
export async function openDatabase(
  path: string,
  config: Record<string, string>,
  wait: OpenWait,
): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  if (path === ':memory:') {
    const instance = await DuckDBInstance.create(path, config);
    return { instance, connection: await instance.connect() };
  }
  // Spilled blocks go beside the file, where a database opened by path puts them.
  const instance = await DuckDBInstance.create(':memory:', { ...config, temp_directory: `${path}.tmp` });
  const connection = await instance.connect();
  const catalog = catalogName(path);
  let announced = false;
  try {
    for (let pause = 25; ; pause = Math.min(pause * 2, LOCK_POLL_MAX_MS)) {
      try {
        // Asked at each attempt: a file another process held while this one waited exists now.
        const format = existsSync(path) ? '' : `, STORAGE_VERSION '${STORAGE_VERSION}'`;
        await connection.run(
          `ATTACH ${quoted(path, "'")} AS ${quoted(catalog, '"')} (ROW_GROUP_SIZE ${ROW_GROUP_ROWS}${format})`,
        );
        await connection.run(`USE ${quoted(catalog, '"')}`);
        return { instance, connection };
      } catch (error) {
        const holder = lockHolder(error);
        if (holder === null) throw error;
        if (wait === undefined) throw new TargetLockedError(`duckdb:${path}`, holder);
        if (!announced) wait.onWait?.(holder);
        announced = true;
      }
      // An abort ends the pause at once; the check below turns it into InterruptedError.
      await delay(pause, undefined, { signal: wait.signal }).catch(() => undefined);
      if (wait.signal.aborted)
        throw new InterruptedError(
          `stopped while waiting for another process to close duckdb:${path}; nothing was synced`,
        );
    }
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
}
