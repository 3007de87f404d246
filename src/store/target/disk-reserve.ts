import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';

/**
 * Room the end of a run needs on a full disk: a row of `sync_runs` through
 * the WAL (a few pages of SQLite's, a DuckDB WAL entry), with a wide margin.
 */
export const DISK_RESERVE_BYTES = 256 * 1024;

/**
 * A file of zeros beside a SQLite or DuckDB target, held while ivsync writes
 * into it. A disk that fills up leaves no room even for the line that says
 * the run failed: freeing this file makes that room, so the run is recorded
 * `failed` with its error instead of being found dead later. Best effort: on
 * a disk already full none is made, and the run is no worse off.
 */
export class DiskReserve {
  readonly #path: string;
  /** Whether this process made the file (a file left by a killed process, or another's, is only used). */
  #made: boolean;
  #held: boolean;

  private constructor(path: string, made: boolean, held: boolean) {
    this.#path = path;
    this.#made = made;
    this.#held = held;
  }

  /** The reserve of the database file at `databasePath`: the one there, or a new one when there is room for it. */
  static hold(databasePath: string): DiskReserve {
    const path = `${databasePath}.reserve`;
    const made = make(path);
    // Not made: there already (left by a killed run, or another process's), or no room for it.
    return new DiskReserve(path, made === 'made', made !== 'none');
  }

  /**
   * Makes the reserve again once a run has started (there was room for its
   * row): a daemon whose run spent it on a full disk has one for the next.
   */
  renew(): void {
    if (this.#held) return;
    const made = make(this.#path);
    this.#held = made !== 'none';
    if (made === 'made') this.#made = true;
  }

  /** Frees the room for a last write; false when there is none to free (none was made, or it is spent). */
  release(): boolean {
    if (!this.#held) return false;
    this.#held = false;
    return remove(this.#path);
  }

  /** Removes the file this process made, when the target is closed. */
  close(): void {
    if (this.#made && this.#held) remove(this.#path);
    this.#held = false;
  }
}

/** Writes the file of zeros: `made`, `there` (it was already), or `none` (no room, or the directory refuses it). */
function make(path: string): 'made' | 'there' | 'none' {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'there' : 'none';
  }
  try {
    const zeros = Buffer.alloc(DISK_RESERVE_BYTES);
    for (let written = 0; written < zeros.length;) written += writeSync(fd, zeros, written);
    closeSync(fd);
    return 'made';
  } catch {
    closeSync(fd);
    remove(path);
    return 'none';
  }
}

function remove(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}
