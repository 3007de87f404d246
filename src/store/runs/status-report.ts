import type { ApiVersion, Resource } from '../../normalize/rows.js';
import { readRow, readValue } from '../row-reader.js';
import { table, TABLES } from '../../schema/schema.js';
import { nonFinal as nonFinalSql, RESOURCES, sessionTable } from '../../schema/session-table.js';
import { toIsoMicros } from '../../normalize/time.js';
import { CHECKED_EPOCH, checkAgeSql } from './check-age-sql.js';
import type { Dialect } from '../../schema/dialect.js';
import type {
  ChangeLag,
  RefreshSpend,
  RefreshTier,
  RefreshTierState,
  StatusOptions,
  StatusReport,
  StatusSource,
  WindowStatus,
} from '../sink.js';
import type { SqlDriver, SqlExecutor } from '../drivers/sql-driver.js';

const COUNT = { type: 'integer' } as const;
const TIME = { type: 'timestamp' } as const;
const REAL = { type: 'real' } as const;

/** Observed lags `status` reads per account and resource: the latest, as "recent" needs no clock. */
export const CHANGE_LAGS_KEPT = 1000;

const isoOf = (epoch: unknown): string | null => {
  const value = readValue(REAL, epoch) as number | null;
  return value === null ? null : toIsoMicros(value);
};

/**
 * Non-final sessions per account, resource and refresh tier, with the age
 * figures of their last checks (check-age-sql.ts; the counts are
 * v_sync_health's). A session never re-checked counts from when it was
 * last observed: the pass that stored it saw it as a check would, and that is
 * what its first check is scheduled from.
 */
async function refreshTiers(tx: SqlExecutor, dialect: Dialect): Promise<RefreshTierState[]> {
  const out: RefreshTierState[] = [];
  for (const resource of RESOURCES) {
    const sql = checkAgeSql(resource, CHECKED_EPOCH[dialect]);
    const rows = await tx.all(`${sql} ORDER BY account, tier`);
    for (const row of rows) {
      out.push({
        account: row.account as string,
        resource,
        tier: row.tier as RefreshTier | 'unchecked',
        sessions: Number(readValue(COUNT, row.sessions)),
        oldestCheckAt: isoOf(row.oldest_epoch),
        p50CheckAt: isoOf(row.p50_epoch),
        p95CheckAt: isoOf(row.p95_epoch),
      });
    }
  }
  return out;
}

const spendOf = (budget: number | null, spent: number | null): RefreshSpend | null =>
  budget === null ? null : { budget, spent: spent ?? 0 };

/**
 * The latest CHANGE_LAGS_KEPT observed lags of each account and resource,
 * newest first: one query per pair the windows know, each served by the
 * index on (account, resource, stored_at), as change_lags keeps growing.
 */
async function changeLags(tx: SqlExecutor): Promise<ChangeLag[]> {
  const out: ChangeLag[] = [];
  const pairs = await tx.all('SELECT DISTINCT account, resource FROM sync_windows ORDER BY account, resource');
  for (const pair of pairs) {
    const rows = await tx.all(
      `SELECT account, resource, stored_at, lag_seconds FROM change_lags WHERE account = ? AND resource = ?
       ORDER BY stored_at DESC, service_id LIMIT ${CHANGE_LAGS_KEPT}`,
      [pair.account, pair.resource],
    );
    for (const r of rows) {
      out.push({
        account: r.account as string,
        resource: r.resource as Resource,
        storedAt: readValue(TIME, r.stored_at) as string,
        lagSeconds: readValue(REAL, r.lag_seconds) as number,
      });
    }
  }
  return out;
}

/** The account, resource and interface a row of sync_windows (or a grouping of them) belongs to. */
function scopeOf(r: Record<string, unknown>): { account: string; resource: Resource; apiVersion: ApiVersion } {
  return { account: r.account as string, resource: r.resource as Resource, apiVersion: r.api_version as ApiVersion };
}

/** What `ivsync status`, the metrics and the health view read: counts, windows, marks and the last runs. */
export class SqlStatusSource implements StatusSource {
  readonly #driver: SqlDriver;

  constructor(driver: SqlDriver) {
    this.#driver = driver;
  }

  async status(options: StatusOptions = {}): Promise<StatusReport> {
    return this.#driver.read(async (tx) => {
      const count = async (from: string, where?: string) => {
        const [row] = await tx.all(`SELECT COUNT(*) AS n FROM ${from}${where === undefined ? '' : ` WHERE ${where}`}`);
        return Number(readValue(COUNT, row?.n) ?? 0);
      };
      const tables: Record<string, number> = {};
      if (options.tables !== false) for (const def of TABLES) tables[def.name] = await count(def.name);
      const windows = await tx.all(
        `SELECT account, resource, api_version, status, COUNT(*) AS n, SUM(items) AS items FROM sync_windows
         GROUP BY account, resource, api_version, status ORDER BY account, resource, api_version, status`,
      );
      const marks = await tx.all(
        `SELECT account, resource, api_version, MAX(synced_to) AS synced_to FROM sync_windows
         GROUP BY account, resource, api_version ORDER BY account, resource, api_version`,
      );
      const nonFinal = { authentications: 0, fingerprints: 0 };
      const missing = { authentications: 0, fingerprints: 0 };
      // Two counts, each from its partial index (session-tables.ts): one pass over the table read every session.
      for (const resource of RESOURCES) {
        const from = sessionTable(resource).name;
        nonFinal[resource] = await count(from, `${nonFinalSql()} AND missing_since IS NULL`);
        missing[resource] = await count(from, 'missing_since IS NOT NULL');
      }
      const refresh = await refreshTiers(tx, this.#driver.dialect);
      const lags = await changeLags(tx);
      const [delivery] = await tx.all('SELECT MAX(received_at) AS received_at FROM webhook_deliveries');
      const runs = await tx.all(
        `SELECT id, command, started_at, finished_at, status, requests, items_written, error, holder,
           refresh_budget, refresh_spent
         FROM sync_runs
         ORDER BY started_at DESC, id DESC LIMIT 10`,
      );
      const windowDef = table('sync_windows');
      const runDef = table('sync_runs');
      return {
        tables,
        windows: windows.map((w) => ({
          ...scopeOf(readRow(windowDef, w)),
          status: w.status as WindowStatus,
          count: Number(readValue(COUNT, w.n)),
          items: Number(readValue(COUNT, w.items) ?? 0),
        })),
        highWaterMarks: marks.map((m) => {
          const r = readRow(windowDef, m);
          return { ...scopeOf(r), syncedTo: r.synced_to as number | null };
        }),
        nonFinal,
        missing,
        rejected: tables.rejected_items ?? (await count('rejected_items')),
        refresh,
        changeLags: lags,
        lastDeliveryAt: readValue(TIME, delivery?.received_at) as string | null,
        lastRuns: runs.map((run) => {
          const r = readRow(runDef, run);
          return {
            id: r.id as string,
            command: r.command as string,
            startedAt: r.started_at as string,
            finishedAt: r.finished_at as string | null,
            status: r.status as string,
            requests: r.requests as number,
            itemsWritten: r.items_written as number,
            error: r.error as string | null,
            holder: r.holder as string | null,
            refresh: spendOf(r.refresh_budget as number | null, r.refresh_spent as number | null),
          };
        }),
      };
    });
  }
}
