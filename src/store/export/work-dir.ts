import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { pidAlive } from '../pid-alive.js';

/** The names of exports' work directories: hidden, so that a listing of the destination shows the exports only. */
export const WORK_DIR_PREFIX = '.ivsync-export-';

/** The file in a work directory that names the process that made it. */
const OWNER_FILE = 'owner.json';

/**
 * A work directory left by a process on another machine (a shared disk, a
 * container's new host name) is removed once nothing in it has changed for
 * this long: a running export writes a file at least every piece.
 */
export const FOREIGN_STALE_MS = 24 * 60 * 60 * 1000;

/** The work directories of this process's exports still running: another export of it keeps them. */
const running = new Set<string>();

interface Owner {
  host: string;
  pid: number;
}

/**
 * Where an export writes everything before its result is in place: the
 * staging DuckDB file and its spill, the Parquet files under their partial
 * names, CSV pieces and views' pieces. One directory beside the destination
 * (so each result is put in place by a rename on the same disk), removed
 * whole when the export ends, however it ends.
 *
 * A process killed mid-export (SIGKILL, the machine's power) cannot remove
 * it; the next export into the same directory does, when the process that
 * made it is gone: one of this machine whose pid no longer runs (or is this
 * process's own, as a container's first process is each time, but not one
 * of this process's running exports), or one of
 * any machine whose directory has not changed for FOREIGN_STALE_MS. Another
 * export that is running keeps its own.
 */
export class WorkDir {
  readonly path: string;

  private constructor(path: string) {
    this.path = path;
  }

  /**
   * Removes the work directories stale exports left in `parent`, then makes this export's own. `removed` names the
   * directories removed.
   */
  static async make(parent: string): Promise<{ work: WorkDir; removed: string[] }> {
    await mkdir(parent, { recursive: true });
    const removed = await removeStale(parent);
    const path = join(parent, `${WORK_DIR_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
    await mkdir(path);
    running.add(resolve(path));
    const owner: Owner = { host: hostname(), pid: process.pid };
    await writeFile(join(path, OWNER_FILE), `${JSON.stringify(owner)}\n`);
    return { work: new WorkDir(path), removed };
  }

  /** A path in the directory. */
  file(name: string): string {
    return join(this.path, name);
  }

  /** Removes the directory and whatever is left in it. */
  async remove(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
    running.delete(resolve(this.path));
  }
}

async function removeStale(parent: string): Promise<string[]> {
  const removed: string[] = [];
  const entries = await readdir(parent, { withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith(WORK_DIR_PREFIX)) continue;
    const dir = join(parent, entry.name);
    try {
      if (!(await isStale(dir))) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Not ours to judge (unreadable, or removed by another export meanwhile): left as it is.
    }
  }
  return removed;
}

async function isStale(dir: string): Promise<boolean> {
  const owner = await readOwner(dir);
  if (owner && owner.host === hostname()) {
    return owner.pid === process.pid ? !running.has(resolve(dir)) : !pidAlive(owner.pid);
  }
  return Date.now() - (await lastChange(dir)) > FOREIGN_STALE_MS;
}

async function readOwner(dir: string): Promise<Owner | null> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(dir, OWNER_FILE), 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { host, pid } = parsed as Partial<Owner>;
    return typeof host === 'string' && Number.isInteger(pid) && pid! > 0 ? { host, pid: pid! } : null;
  } catch {
    // Made but not yet named (or named by something else): judged by its age alone.
    return null;
  }
}

/** The newest change to the directory or a file in it, in epoch milliseconds. */
async function lastChange(dir: string): Promise<number> {
  let newest = (await stat(dir)).mtimeMs;
  for (const name of await readdir(dir)) {
    const info = await stat(join(dir, name)).catch(() => null);
    if (info) newest = Math.max(newest, info.mtimeMs);
  }
  return newest;
}
