import type { NormalizedBatch, Resource } from '../../normalize/rows.js';
import { markMissingWhere } from '../history/history-store.js';
import type { HistorySource } from '../history/history-version.js';
import { rowReader } from '../row-reader.js';
import { commitKeepingAside } from './refused-items.js';
import { countOutcomes, mergeSessions, probeBatch, writeRejected } from './session-merge.js';
import { nonFinal, sessionTable } from '../../schema/session-table.js';
import type { CommitResult, SessionStore } from '../sink.js';
import type { SqlDriver, SqlExecutor } from '../drivers/sql-driver.js';

/** Sessions that arrive outside a window pass (a GET, a lookup), and what the refresh reads. */
export class SqlSessionStore implements SessionStore {
  readonly #driver: SqlDriver;

  constructor(driver: SqlDriver) {
    this.#driver = driver;
  }

  /** A session the target refuses is kept aside, its neighbours merged (see refused-items.ts). */
  async mergeBatch(batch: NormalizedBatch): Promise<CommitResult> {
    return commitKeepingAside(
      batch,
      (kept) =>
        this.#driver.transaction(async (tx) => {
          const { outcomes } = await mergeSessions(tx, kept.sessions);
          await writeRejected(tx, kept.rejected);
          return { ...countOutcomes(outcomes), rejected: kept.rejected.length, missing: 0 };
        }),
      (part) => probeBatch(this.#driver, part),
    );
  }

  async markMissing(account: string, resource: Resource, serviceIds: readonly string[], now: string): Promise<number> {
    if (serviceIds.length === 0) return 0;
    return this.#driver.transaction((tx) => markMissingIn(tx, { account, resource, serviceIds, now, source: 'get' }));
  }

  async nonFinalCount(account: string, resource: Resource): Promise<number> {
    const def = sessionTable(resource);
    const sql = `SELECT COUNT(*) AS n FROM ${def.name} WHERE account = ? AND ${nonFinal()} AND missing_since IS NULL`;
    const rows = await this.#driver.read((tx) => tx.all(sql, [account]));
    return Number(rows[0]?.n ?? 0);
  }

  async nonFinalEpochs(account: string, resource: Resource): Promise<Float64Array> {
    return this.#epochs(resource, `${nonFinal()} AND created_epoch IS NOT NULL`, [account]);
  }

  async storedEpochs(account: string, resource: Resource, from: number, to: number): Promise<Float64Array> {
    return this.#epochs(resource, 'created_epoch >= ? AND created_epoch < ?', [account, from, to]);
  }

  /** Created times (ascending) of an account's sessions that are not missing and match `where`. */
  async #epochs(resource: Resource, where: string, params: unknown[]): Promise<Float64Array> {
    const def = sessionTable(resource);
    const epochs: number[] = [];
    const sql = `SELECT created_epoch FROM ${def.name} WHERE account = ? AND missing_since IS NULL AND ${where}`;
    // A number a session, not a row object: at a million sessions a hundred thousand are not final.
    await this.#driver.read((tx) =>
      tx.each(sql, params, (rows) => rows.forEach((row) => epochs.push(rowReader(def, row).number('created_epoch')))),
    );
    return Float64Array.from(epochs).sort();
  }
}

/**
 * `missing_since = now` for the sessions of `serviceIds` where still null,
 * inside the caller's transaction, each with its version in session_history;
 * with `seenBefore`, only those not seen since then (a webhook that
 * delivered one meanwhile proves it is there).
 */
export async function markMissingIn(
  tx: SqlExecutor,
  mark: {
    account: string;
    resource: Resource;
    serviceIds: readonly string[];
    now: string;
    source: HistorySource;
    seenBefore?: string;
  },
): Promise<number> {
  if (mark.serviceIds.length === 0) return 0;
  const list = tx.whereIn('service_id', [...new Set(mark.serviceIds)]);
  const seen = mark.seenBefore === undefined ? '' : ' AND last_synced_at < ?';
  return markMissingWhere(tx, {
    resource: mark.resource,
    where: `account = ?${seen} AND ${list.sql}`,
    params: [mark.account, ...(mark.seenBefore === undefined ? [] : [mark.seenBefore]), ...list.params],
    now: mark.now,
    source: mark.source,
  });
}
