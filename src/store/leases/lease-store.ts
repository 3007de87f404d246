import { isoFromMicros, microsFromIso } from '../../normalize/time.js';
import { rowReader } from '../row-reader.js';
import { table } from '../../schema/schema.js';
import type { LeaseState, LeaseStore } from '../sink.js';
import type { SqlDriver } from '../drivers/sql-driver.js';

const LEASES = table('sync_leases');

/** Leases in `sync_leases`: one holder at a time per name, taken over once its heartbeat is older than a ttl. */
export class SqlLeaseStore implements LeaseStore {
  readonly #driver: SqlDriver;

  constructor(driver: SqlDriver) {
    this.#driver = driver;
  }

  async acquireLease(name: string, holder: string, ttlSeconds: number, now: string): Promise<LeaseState> {
    const nowMicros = microsFromIso(now);
    if (nowMicros === null) throw new Error(`acquireLease: not an ISO time: ${now}`);
    const staleBefore = isoFromMicros(nowMicros - Math.round(ttlSeconds * 1_000_000));
    return this.#driver.transaction(async (tx) => {
      const [before] = await tx.all('SELECT holder FROM sync_leases WHERE name = ?', [name]);
      // One statement decides: insert, renew (same holder) or take over a lease
      // whose heartbeat is older than the ttl; a live lease of another holder is left alone.
      await tx.run(
        `INSERT INTO sync_leases (name, holder, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET
           acquired_at = CASE WHEN sync_leases.holder = excluded.holder THEN sync_leases.acquired_at ELSE ` +
          `excluded.acquired_at END,
           holder = excluded.holder,
           heartbeat_at = excluded.heartbeat_at
         WHERE sync_leases.holder = excluded.holder OR sync_leases.heartbeat_at < ?`,
        [name, holder, now, now, staleBefore],
      );
      const [row] = await tx.all('SELECT name, holder, acquired_at, heartbeat_at FROM sync_leases WHERE name = ?', [
        name,
      ]);
      if (!row) throw new Error(`acquireLease: lease ${name} vanished`);
      const state = leaseState(row, holder);
      const previous = before === undefined ? null : rowReader(LEASES, before).text('holder');
      return state.held && previous !== null && previous !== holder ? { ...state, tookOverFrom: previous } : state;
    });
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.#driver.transaction((tx) =>
      tx.run('DELETE FROM sync_leases WHERE name = ? AND holder = ?', [name, holder]),
    );
  }

  async leases(): Promise<LeaseState[]> {
    const rows = await this.#driver.read((tx) =>
      tx.all('SELECT name, holder, acquired_at, heartbeat_at FROM sync_leases ORDER BY name'),
    );
    return rows.map((r) => leaseState(r, null));
  }
}

function leaseState(row: Record<string, unknown>, caller: string | null): LeaseState {
  const r = rowReader(LEASES, row);
  const holder = r.text('holder');
  return {
    name: r.text('name'),
    holder,
    acquiredAt: r.text('acquired_at'),
    heartbeatAt: r.text('heartbeat_at'),
    held: caller !== null && holder === caller,
  };
}
