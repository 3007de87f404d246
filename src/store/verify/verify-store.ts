import type { Resource } from '../../normalize/rows.js';
import { readRow, readValue } from '../row-reader.js';
import { table } from '../../schema/schema.js';
import { countOutcomes, mergeSessions } from '../pages/session-merge.js';
import { markMissingIn } from '../pages/session-store.js';
import { sessionTable } from '../../schema/session-table.js';
import type { VerifyEnd, VerifyStart, VerifyStore, WindowCheck, WindowQuery } from '../sink.js';
import type { Row, SqlDriver } from '../drivers/sql-driver.js';
import { markWindowIn, windowsWhere } from '../windows/window-store.js';

const RUNS = table('verify_runs');
const FINDINGS = table('verify_findings');

export class SqlVerifyStore implements VerifyStore {
  readonly #driver: SqlDriver;

  constructor(driver: SqlDriver) {
    this.#driver = driver;
  }

  async startVerify(run: VerifyStart): Promise<void> {
    const row: Row = {
      id: run.id,
      started_at: run.startedAt,
      finished_at: null,
      account: run.account,
      budget: run.budget,
      seed: run.seed,
      requests: 0,
      windows_checked: 0,
      sessions_checked: 0,
      findings: 0,
      repaired: null,
      status: 'running',
      error: null,
      holder: run.holder,
    };
    await this.#driver.transaction((tx) => tx.write(RUNS, [row], 'replace'));
  }

  async finishVerify(id: string, end: VerifyEnd): Promise<void> {
    await this.#driver.transaction(async (tx) => {
      const changed = await tx.run(
        `UPDATE verify_runs SET finished_at = ?, status = ?, requests = ?, windows_checked = ?, sessions_checked = ` +
          `?, findings = ?, repaired = ?, error = ?
         WHERE id = ?`,
        [
          end.finishedAt,
          end.status,
          end.requests,
          end.windowsChecked,
          end.sessionsChecked,
          end.findings,
          end.repaired,
          end.error,
          id,
        ],
      );
      if (changed !== 1) throw new Error(`finishVerify: no run ${id}`);
    });
  }

  /**
   * The sessions of each window less its missing ones: two reads that each count an index alone (the account's
   * created times, and the partial index of the missing sessions), as storedEpochs does. One join that counted
   * the sessions with `missing_since IS NULL` read a table page for each session to test that column, on
   * Postgres some seven million of a 13 GB table at 10M sessions, where `verify --budget 100` took 172 s
   * (docs/benchmarks.md).
   */
  async storedPerWindow(query: WindowQuery): Promise<Map<number, number>> {
    const { where, params } = windowsWhere(query, 'w.');
    const table = sessionTable(query.resource).name;
    const perWindow = (missing: boolean) =>
      `SELECT w.window_start AS window_start, COUNT(s.created_epoch) AS n FROM sync_windows w
       LEFT JOIN ${table} s ON s.account = w.account AND s.created_epoch >= w.window_start AND ` +
      `s.created_epoch < w.window_end${missing ? ' AND s.missing_since IS NOT NULL' : ''}
       WHERE ${where} GROUP BY w.window_start`;
    const [every, missing] = await this.#driver.read(async (tx) => [
      await tx.all(perWindow(false), params),
      await tx.all(perWindow(true), params),
    ]);
    const counts = (rows: Record<string, unknown>[]) =>
      new Map(
        rows.map((r) => [
          Number(readValue({ type: 'integer' }, r.window_start)),
          Number(readValue({ type: 'integer' }, r.n)),
        ]),
      );
    const gone = counts(missing);
    return new Map([...counts(every)].map(([start, n]) => [start, n - (gone.get(start) ?? 0)]));
  }

  async storedSessions(
    account: string,
    resource: Resource,
    from: number,
    to: number,
  ): Promise<Record<string, unknown>[]> {
    const def = sessionTable(resource);
    const columns = def.columns.filter((c) => c.name !== 'raw').map((c) => c.name);
    const rows = await this.#driver.read((tx) =>
      tx.all(
        `SELECT ${columns.join(', ')} FROM ${def.name} WHERE account = ? AND created_epoch >= ? AND created_epoch < ?`,
        [account, from, to],
      ),
    );
    return rows.map((r) => readRow(def, r));
  }

  async recordCheck(check: WindowCheck): Promise<{ repaired: number }> {
    const repair = check.repair;
    if (
      check.findings.length === 0 &&
      (repair === undefined || repair.sessions.length + repair.notReturned.length === 0)
    )
      return { repaired: 0 };
    return this.#driver.transaction(async (tx) => {
      let repaired = 0;
      if (repair !== undefined) {
        // The sessions repaired and those the service no longer returned, in one call (SqlExecutor.lock).
        await tx.lock({ session: [...repair.sessions.map((s) => s.row.service_id), ...repair.notReturned] });
        const { outcomes } = await mergeSessions(tx, repair.sessions, { rewrite: repair.rewrite, source: 'verify' });
        const counts = countOutcomes(outcomes);
        // A stale outcome lost to a newer stored row (a webhook meanwhile): right as it is, not repaired.
        repaired += counts.written + counts.unchanged;
        const resource = repair.key.resource;
        repaired += await markMissingIn(tx, {
          account: repair.key.account,
          resource,
          serviceIds: repair.notReturned,
          now: repair.now,
          source: 'verify',
          seenBefore: repair.pagedSince,
        });
        if (check.findings.length > 0) await markWindowIn(tx, repair.key, 'pending', null, repair.now);
      }
      const rows: Row[] = check.findings.map((f, i) => ({
        run_id: check.runId,
        seq: check.firstSeq + i,
        account: f.account,
        resource: f.resource,
        service_id: f.serviceId,
        kind: f.kind,
        column_name: f.column,
        stored_value: f.storedValue,
        service_value: f.serviceValue,
        window_start: f.windowStart,
        repaired: repair !== undefined,
      }));
      if (rows.length > 0) await tx.write(FINDINGS, rows, 'replace');
      return { repaired };
    });
  }

  async lastVerifyStart(account: string): Promise<string | null> {
    const [row] = await this.#driver.read((tx) =>
      tx.all('SELECT MAX(started_at) AS started_at FROM verify_runs WHERE account = ? OR account IS NULL', [account]),
    );
    return row ? (readValue({ type: 'text' }, row.started_at) as string | null) : null;
  }
}
