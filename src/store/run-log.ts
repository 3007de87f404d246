import { table } from './schema.js';
import type { RunEnd, RunLog, RunStart } from './sink.js';
import type { SqlDriver } from './sql-driver.js';

/** `sync_runs`: one row per run, written when it starts and when it ends; a dead process's verify_runs are abandoned with its sync_runs. */
export class SqlRunLog implements RunLog {
  readonly #driver: SqlDriver;

  constructor(driver: SqlDriver) {
    this.#driver = driver;
  }

  async startRun(run: RunStart): Promise<void> {
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
  }

  async finishRun(id: string, end: RunEnd): Promise<void> {
    await this.#driver.transaction(async (tx) => {
      const changed = await tx.run(
        `UPDATE sync_runs SET finished_at = ?, status = ?, requests = ?, items_written = ?, error = ?,
           refresh_budget = ?, refresh_spent = ?
         WHERE id = ?`,
        [
          end.finishedAt,
          end.status,
          end.requests,
          end.itemsWritten,
          end.error,
          end.refresh?.budget ?? null,
          end.refresh?.spent ?? null,
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
        runs += await tx.run(`UPDATE ${table} SET status = 'abandoned', finished_at = ?, error = ? WHERE holder = ? AND status = 'running'`, [at, `abandoned: ${how}`, holder]);
      }
      return runs;
    });
  }
}
