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
    const where = `${nonFinal()} AND missing_since IS NULL AND created_epoch IS NOT NULL`;
    return this.#driver.read((tx) => epochsOf(tx, resource, where, [account]));
  }

  /**
   * Every stored session's created time in the range, less the missing ones': two reads of an index alone each
   * (the account's created times, and the partial index of the missing sessions), where `missing_since IS NULL`
   * read a table page for each session of the range.
   */
  async storedEpochs(account: string, resource: Resource, from: number, to: number): Promise<Float64Array> {
    const range = 'created_epoch >= ? AND created_epoch < ?';
    return this.#driver.read(async (tx) => {
      const every = await epochsOf(tx, resource, range, [account, from, to]);
      const missing = await epochsOf(tx, resource, `missing_since IS NOT NULL AND ${range}`, [account, from, to]);
      return withoutEach(every, missing);
    });
  }
}

/** Created times (ascending) of an account's sessions that match `where`. */
async function epochsOf(tx: SqlExecutor, resource: Resource, where: string, params: unknown[]): Promise<Float64Array> {
  const def = sessionTable(resource);
  const epochs: number[] = [];
  // A number a session, not a row object: at a million sessions a hundred thousand are not final.
  await tx.each(`SELECT created_epoch FROM ${def.name} WHERE account = ? AND ${where}`, params, (rows) =>
    rows.forEach((row) => epochs.push(rowReader(def, row).number('created_epoch'))),
  );
  return Float64Array.from(epochs).sort();
}

/** `every` less one of its values for each of `some` (both ascending; a value `every` lacks is skipped), ascending. */
export function withoutEach(every: Float64Array, some: Float64Array): Float64Array {
  if (some.length === 0) return every;
  const kept = new Float64Array(every.length);
  let n = 0;
  let j = 0;
  for (const value of every) {
    while (j < some.length && some[j]! < value) j++;
    if (j < some.length && some[j] === value) j++;
    else kept[n++] = value;
  }
  return kept.slice(0, n);
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
