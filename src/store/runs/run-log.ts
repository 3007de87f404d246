import { table } from '../../schema/schema.js';
import type { RunEnd, RunLog, RunStart } from '../sink.js';
import type { SqlDriver } from '../drivers/sql-driver.js';
import { DiskFullError, StoreError } from '../drivers/store-error.js';
import type { DiskReserve } from '../target/disk-reserve.js';

/**
 * `sync_runs`: one row per run, written when it starts and when it ends; a
 * dead process's verify_runs are abandoned with its sync_runs. An end that
 * could not be written (the target down longer than its retries) is kept
 * and written before the next run starts, so a process that lives on (a
 * daemon) leaves no run `running` once the target is back. An end that
 * meets a full disk frees the target's reserve (disk-reserve.ts) and is
 * written into that room, so a run the disk stopped is recorded `failed`.
 */
export class SqlRunLog implements RunLog {
  readonly #driver: SqlDriver;
  readonly #reserve: DiskReserve | null;
  readonly #unwritten = new Map<string, RunEnd>();

  constructor(driver: SqlDriver, reserve: DiskReserve | null = null) {
    this.#driver = driver;
    this.#reserve = reserve;
  }

  async startRun(run: RunStart): Promise<void> {
    // Best effort: the start below meets the same fault if the target is still down.
    await this.#writeEnds().catch(() => undefined);
    const row = {
      id: run.id,
      command: run.command,
      started_at: run.startedAt,
      finished_at: null,
      status: 'running',
      requests: 0,
      items_written: 0,
      error: null,
      account: run.account,
      holder: run.holder,
      refresh_budget: null,
      refresh_spent: null,
    };
    await this.#driver.transaction((tx) => tx.write(table('sync_runs'), [row], 'replace'));
    this.#reserve?.renew();
  }

  async finishRun(id: string, end: RunEnd): Promise<void> {
    this.#unwritten.set(id, end);
    await this.#writeEnds();
  }

  /** Writes the ends kept, oldest first; one that fails stays for the next attempt. */
  async #writeEnds(): Promise<void> {
    for (const [id, end] of [...this.#unwritten]) {
      try {
        await this.#writeEnd(id, end);
        this.#unwritten.delete(id);
      } catch (error) {
        // Only a failed target is worth another try; anything else would fail the same way.
        if (!(error instanceof StoreError && error.failure === 'target')) this.#unwritten.delete(id);
        throw error;
      }
    }
  }

  async #writeEnd(id: string, end: RunEnd): Promise<void> {
    try {
      await this.#updateEnd(id, end);
    } catch (error) {
      if (!(error instanceof DiskFullError && this.#reserve?.release() === true)) throw error;
      await this.#updateEnd(id, end);
    }
  }

  async #updateEnd(id: string, end: RunEnd): Promise<void> {
    await this.#driver.transaction(async (tx) => {
      const changed = await tx.run(
        `UPDATE sync_runs SET finished_at = ?, status = ?, requests = ?, items_written = ?, error = ?,
           refresh_budget = ?, refresh_spent = ?, throttled = ?, retry_wait_ms = ?
         WHERE id = ?`,
        [
          end.finishedAt,
          end.status,
          end.requests,
          end.itemsWritten,
          end.error,
          end.refresh?.budget ?? null,
          end.refresh?.spent ?? null,
          end.throttled ?? 0,
          Math.round(end.retryWaitMs ?? 0),
          id,
        ],
      );
      if (changed !== 1) throw new Error(`finishRun: no run ${id}`);
    });
  }

  async abandonRuns(holder: string, at: string, how: string): Promise<number> {
    return this.#driver.transaction(async (tx) => {
      let runs = 0;
      for (const table of ['sync_runs', 'verify_runs']) {
        runs += await tx.run(
          `UPDATE ${table} SET status = 'abandoned', finished_at = ?, error = ? WHERE holder = ? AND status = ` +
            `'running'`,
          [at, `abandoned: ${how}`, holder],
        );
      }
      return runs;
    });
  }
}
