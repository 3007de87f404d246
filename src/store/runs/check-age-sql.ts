import type { Resource } from '../../normalize/rows.js';
import type { Dialect } from '../../schema/dialect.js';
import { nonFinal } from '../../schema/session-table.js';

/**
 * The epoch seconds of `c.checked`, a timestamp, in each dialect. SQLite keeps
 * times as ISO text in one form (`2026-01-02T03:04:05.123456Z`): its whole
 * seconds, plus the fraction read as written (julianday would round it to
 * the millisecond).
 */
export const CHECKED_EPOCH: Readonly<Record<Dialect, string>> = {
  sqlite: "(CAST(strftime('%s', c.checked) AS REAL) + CAST(substr(c.checked, 20, 7) AS REAL))",
  postgres: 'EXTRACT(EPOCH FROM c.checked)',
  duckdb: 'EXTRACT(EPOCH FROM c.checked)',
};

/** The percentiles of check age every report gives, beside the oldest. */
export const CHECK_AGE_PERCENTILES = [50, 95] as const;

const tier = "COALESCE(r.tier, 'unchecked')";

/**
 * One row per account and refresh tier of `resource`'s non-final sessions
 * (`tier`: hot, backoff, or 'unchecked' for a session never re-checked):
 * `sessions`, and the time of the last check, in epoch seconds, of the
 * oldest (`oldest_epoch`) and of the sessions at the 50th and 95th
 * percentile of age (`p50_epoch`, `p95_epoch`; nearest rank, so each is a
 * real session's). A session never re-checked counts from when it was last
 * observed: the pass that stored it saw it as a check would.
 *
 * The percentiles are ranks and integer comparisons over window functions,
 * not PERCENTILE_CONT (PostgreSQL and DuckDB spell it differently, SQLite
 * has none), so one text runs on every target; `epochOf` turns `c.checked`
 * into epoch seconds (CHECKED_EPOCH, or a view's fragment of it).
 *
 * The sessions are chosen by session-table.ts's `nonFinal`, which SQLite reads
 * from the index of the non-final sessions; `NOT s.result_final` read every
 * session (at 10M sessions 15 of `status`'s 22 s). v_sync_health reads the
 * same text since 20261201100000_sync_health_indexed.
 */
export function checkAgeSql(resource: Resource, epochOf: string): string {
  const checks = `SELECT s.account AS account, ${tier} AS tier,
      COALESCE(r.checked_at, s.last_synced_at, s.first_seen_at) AS checked
    FROM ${resource} s LEFT JOIN session_refresh r ON r.resource = '${resource}' AND r.service_id = s.service_id
    WHERE ${nonFinal('s.result_final')} AND s.missing_since IS NULL`;
  const ranked = `SELECT e.account, e.tier, e.checked_epoch,
      ROW_NUMBER() OVER (PARTITION BY e.account, e.tier ORDER BY e.checked_epoch DESC) AS age_rank,
      COUNT(*) OVER (PARTITION BY e.account, e.tier) AS tier_sessions
    FROM (SELECT c.account, c.tier, ${epochOf} AS checked_epoch FROM (${checks}) c) e`;
  // The youngest check ranks 1; the p-th percentile of age is the first rank whose share of the sessions reaches p.
  const at = (p: number) =>
    `MAX(CASE WHEN q.age_rank * 100 >= ${p} * q.tier_sessions THEN q.checked_epoch END) AS p${p}_epoch`;
  return `SELECT q.account AS account, '${resource}' AS resource, q.tier AS tier, COUNT(*) AS sessions,
  MIN(q.checked_epoch) AS oldest_epoch, ${CHECK_AGE_PERCENTILES.map(at).join(', ')}
FROM (${ranked}) q
GROUP BY q.account, q.tier`;
}
