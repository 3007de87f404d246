import { createHash } from 'node:crypto';
import type { Resource } from '../../normalize/rows.js';
import { readValue, rowReader } from '../row-reader.js';
import { table } from '../../schema/schema.js';
import { nonFinal, sessionTable } from '../../schema/session-table.js';
import type { RefreshCandidate, RefreshCheck, RefreshStore, RefreshTier } from '../sink.js';
import type { SqlDriver } from '../drivers/sql-driver.js';

const REFRESH = table('session_refresh');
const TIME = { type: 'timestamp' } as const;
const INTEGER = { type: 'integer' } as const;

const epochOf = (iso: unknown): number | null => {
  const text = readValue(TIME, iso) as string | null;
  return text === null ? null : Date.parse(text) / 1000;
};

/** What the refresh policy reads and writes: non-final sessions with their state in session_refresh. */
export class SqlRefreshStore implements RefreshStore {
  readonly #driver: SqlDriver;

  constructor(driver: SqlDriver) {
    this.#driver = driver;
  }

  async refreshCandidates(
    account: string,
    resource: Resource,
    visit: (candidate: RefreshCandidate) => void,
    within?: { from: number; to: number },
  ): Promise<void> {
    const def = sessionTable(resource);
    // A cursor over the rows: at a million sessions the non-final ones are a hundred thousand rows, which need not all
    // be held at once.
    const sql =
      `SELECT s.service_id, s.created_epoch, s.last_synced_at, s.source, r.checked_at, ` +
      `r.interval_seconds, r.tier
                 FROM ${def.name} s LEFT JOIN session_refresh r ON r.resource = ? AND r.service_id = s.service_id
                 WHERE s.account = ? AND ${nonFinal('s.result_final')} AND s.missing_since IS NULL` +
      (within ? ' AND s.created_epoch >= ? AND s.created_epoch < ?' : '');
    const each = (row: Record<string, unknown>) => {
      const r = rowReader(def, row);
      visit({
        serviceId: r.text('service_id'),
        createdEpoch: r.numberOrNull('created_epoch'),
        checkedAt: epochOf(row.checked_at),
        seenAt: epochOf(row.last_synced_at),
        intervalSeconds: readValue(INTEGER, row.interval_seconds) as number | null,
        // A check that saw nothing new only touches last_synced_at: the stored content is still the delivery's.
        deliveredSinceCheck: r.text('source') === 'webhook',
        tier: (row.tier ?? null) as RefreshTier | null,
      });
    };
    await this.#driver.read((tx) =>
      tx.each(sql, [resource, account, ...(within ? [within.from, within.to] : [])], (rows) => rows.forEach(each)),
    );
  }

  async observedDigests(resource: Resource, serviceIds: readonly string[]): Promise<Map<string, string>> {
    const digests = new Map<string, string>();
    if (serviceIds.length === 0) return digests;
    const def = sessionTable(resource);
    const list = await this.#driver.read(async (tx) => {
      const ids = tx.whereIn('service_id', [...new Set(serviceIds)]);
      const columns = 'service_id, result_id, result_final, flag, missing_since';
      return tx.all(`SELECT ${columns} FROM ${def.name} WHERE ${ids.sql}`, ids.params);
    });
    // What progresses while a result is not final; the raw text differs between a delivery and a GET of the same state.
    for (const row of list) {
      const r = rowReader(def, row);
      const seen = JSON.stringify([
        r.textOrNull('result_id'),
        r.boolean('result_final'),
        r.textOrNull('flag'),
        r.textOrNull('missing_since'),
      ]);
      digests.set(r.text('service_id'), createHash('sha256').update(seen).digest('base64url'));
    }
    return digests;
  }

  async lastDeliveryAt(): Promise<string | null> {
    const [row] = await this.#driver.read((tx) =>
      tx.all('SELECT MAX(received_at) AS received_at FROM webhook_deliveries'),
    );
    return readValue(TIME, row?.received_at) as string | null;
  }

  async recordRefreshChecks(
    account: string,
    resource: Resource,
    checks: readonly RefreshCheck[],
    now: string,
  ): Promise<void> {
    if (checks.length === 0) return;
    const rows = checks.map((c) => ({
      resource,
      service_id: c.serviceId,
      account,
      tier: c.tier,
      checked_at: now,
      interval_seconds: c.intervalSeconds,
    }));
    const def = sessionTable(resource);
    await this.#driver.transaction(async (tx) => {
      await tx.write(REFRESH, rows, 'replace');
      // A session the check found final or gone needs no state any more. Each listed session is looked up by its
      // key: an IN over the sessions that are final or gone made SQLite list them all, the whole history (at 10M
      // sessions 33 s of an idle sync's 59-88).
      const ids = tx.whereIn(
        'service_id',
        checks.map((c) => c.serviceId),
      );
      await tx.run(
        `DELETE FROM session_refresh WHERE resource = ? AND ${ids.sql}
           AND EXISTS (SELECT 1 FROM ${def.name} s WHERE s.service_id = session_refresh.service_id
             AND (s.result_final OR s.missing_since IS NOT NULL))`,
        [resource, ...ids.params],
      );
    });
  }
}
