import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { toIsoMicros } from '../src/normalize/time.js';
import { startSimulator } from '../src/simulator/index.js';
import { cliInProcess as cli } from './in-process-cli.js';
import { markdownTable } from './markdown-table.js';
import { isEntryPoint, numberFlag } from './script-args.js';

const DAY = 86_400;
/** The daemon's default schedule, and the service's limit: a run's budget and the hour's. */
const RUN_SECONDS = 300;
const REAL_RATE = 10;
const RUNS_PER_HOUR = 3600 / RUN_SECONDS;
/**
 * The bucket is lifted so the bench is quick; the budget's share is scaled so that it buys what the default buys at the
 * real limit.
 */
const BENCH_RATE = 100_000;
const BUDGET_SHARE = (0.1 * REAL_RATE) / BENCH_RATE;

export interface SteadyStateRun {
  sessions: number;
  nonFinal: number;
  runs: number;
  /** Requests of each scheduled run after the first sync. */
  requests: number[];
  /** Largest share of the token's hourly budget any 12 consecutive runs used; null with fewer runs than an hour. */
  peakHourShare: number | null;
  meanHourShare: number;
  /**
   * Non-final sessions per tier after the last run, and the age of the oldest check of each (`status --json`), seconds.
   */
  tiers: Record<string, { sessions: number; oldestCheck: number | null }>;
  /** Runs that checked every non-final session (none deferred). */
  checkedAllRuns: number;
  /**
   * The oldest last observation of a non-final session after each run, seconds: the worst after any run, and after the
   * last.
   */
  worstOldest: number;
  /**
   * The run after which every non-final session the first sync stored had been observed again (checked, or seen by
   * a pass); null if some still had not after the last run. Times the run gap, the longest any of them waited: the
   * worst oldest check cannot tell that, as it never passes the bench's own length.
   */
  roundRuns: number | null;
  lastOldest: number;
  /** Young sessions changed at the service just before a run, and those whose row showed the change after it. */
  changes: number;
  changesSeenNextRun: number;
  /** Sessions added at the service over the runs. */
  newSessions: number;
  /**
   * After the last run: the versions session_history shows, those session_versions stores (of sessions that
   * changed), and the bytes of its pages (its key's index too, if any).
   */
  historyRows: number;
  storedVersions: number;
  historyBytes: number;
  /** Bytes of the target's pages (page count × page size): the file once its WAL is checkpointed. */
  fileBytes: number;
}

/**
 * The steady state of a scheduled sync: a year of history (10% of sessions
 * not final) stored by a first sync, then `runs` syncs five minutes apart on
 * an injected clock, with new sessions arriving at the history's own rate
 * (at least one a minute; a tenth of them not final) and, before each run, one young non-final session changed
 * at the service (its flag). The bucket is lifted so the bench is quick; the
 * budget is the default share at the real limit (a tenth: 300 requests a run,
 * what the pass leaves of them refreshing). Prints the
 * requests a run costs, the share of the token's budget they are per hour,
 * the oldest check per tier, and whether each change reached its row in the
 * run that followed it (within one schedule period).
 */
export async function steadyState(sessions: number, runs: number): Promise<SteadyStateRun> {
  const now = Math.floor(Date.now() / 1000);
  const sim = await startSimulator({
    sessions,
    seed: 7,
    rate: BENCH_RATE,
    burst: BENCH_RATE,
    nonFinalShare: 0.1,
    otherOwnerSessions: 0,
    from: now - 365 * DAY,
    to: now - 60,
  });
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-steady-'));
  const db = join(dir, 'ivsync.sqlite');
  try {
    writeFileSync(join(dir, 'ivsync.json'), JSON.stringify({ refresh: { budgetShare: BUDGET_SHARE } }));
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: join(dir, 'ivsync.json'),
      IVS_RATE: String(BENCH_RATE),
    };
    let t = now * 1000;
    await cli(['sync', '--since', String(now - 366 * DAY)], env, () => t);
    const target = new Database(db, { readonly: true });
    const flagOf = target.prepare('SELECT flag FROM authentications WHERE service_id = ?').pluck();
    // The oldest last observation of a non-final session: its last check, else when a pass stored it.
    const oldestSeen = target
      .prepare(
        `SELECT MIN(COALESCE(r.checked_at, s.last_synced_at)) FROM (
           SELECT 'authentications' AS resource, service_id, last_synced_at FROM authentications WHERE NOT result_final
           UNION ALL SELECT 'fingerprints', service_id, last_synced_at FROM fingerprints WHERE NOT result_final
         ) s LEFT JOIN session_refresh r ON r.resource = s.resource AND r.service_id = s.service_id`,
      )
      .pluck();
    // Non-final sessions not observed since the first sync stored them.
    const firstSyncStamp = toIsoMicros(t / 1000);
    const untouchedSince = target
      .prepare(
        `SELECT COUNT(*) FROM (SELECT last_synced_at FROM authentications WHERE NOT result_final
         UNION ALL SELECT last_synced_at FROM fingerprints WHERE NOT result_final) WHERE last_synced_at <= ?`,
      )
      .pluck();
    let roundRuns: number | null = null;
    // IVS_BENCH_TRACE=FILE: a line of JSON a run (its report, its checks by tier, the sessions never observed since
    // the first sync) to read where a run's budget went.
    const traceFile = process.env.IVS_BENCH_TRACE;
    const trace =
      traceFile === undefined
        ? undefined
        : (run: number, at: number, report: object) => {
            const checks = target
              .prepare(
                'SELECT resource, tier, COUNT(*) AS n FROM session_refresh WHERE checked_at = ? ' +
                  'GROUP BY resource, tier',
              )
              .all(toIsoMicros(at / 1000));
            const untouched = untouchedSince.get(firstSyncStamp);
            appendFileSync(traceFile, `${JSON.stringify({ run, report, checks, untouched })}\n`);
          };
    let checkedAllRuns = 0;
    let worstOldest = 0;
    let lastOldest = 0;
    const requests: number[] = [];
    // The history holds `sessions` over a year: 1.9 a minute at a million.
    const perRun = Math.max(RUN_SECONDS / 60, Math.round((sessions / (365 * DAY)) * RUN_SECONDS));
    let changes = 0;
    let seen = 0;
    let newSessions = 0;
    let arrivals = 0;
    let historyRows = 0;
    let storedVersions = 0;
    let historyBytes = 0;
    let fileBytes = 0;
    try {
      for (let run = 1; run <= runs; run++) {
        const from = t / 1000;
        t += RUN_SECONDS * 1000;
        // New sessions over the gap at the history's own rate (at least one a minute), a tenth of them not final.
        for (let i = 0; i < perRun; i++, arrivals++) {
          sim.world.addSession({ epoch: from + ((i + 0.5) * RUN_SECONDS) / perRun - 30, final: arrivals % 10 !== 0 });
          newSessions++;
        }
        // One young non-final session changed at the service (one stored by an earlier run).
        const young = target
          .prepare(
            'SELECT service_id FROM authentications WHERE result_final = 0 AND created_epoch > ? AND ' +
              "created_epoch < ? AND (flag IS NULL OR flag <> 'review') ORDER BY created_epoch LIMIT 1",
          )
          .pluck()
          .get(t / 1000 - DAY, from - 60) as string | undefined;
        if (young) {
          sim.world.setFlag(young, 'review');
          changes++;
        }
        const report = JSON.parse(await cli(['sync', '--json'], env, () => t)) as {
          requests: number;
          outcomes: Array<{ refreshDeferred: number }>;
        };
        requests.push(report.requests);
        if (trace) trace(run, t, report);
        if (report.outcomes.every((o) => o.refreshDeferred === 0)) checkedAllRuns++;
        const oldest = oldestSeen.get() as string | null;
        lastOldest = oldest === null ? 0 : Math.round(t / 1000 - Date.parse(oldest) / 1000);
        worstOldest = Math.max(worstOldest, lastOldest);
        if (roundRuns === null && untouchedSince.get(firstSyncStamp) === 0) roundRuns = run;
        if (young && flagOf.get(young) === 'review') seen++;
      }
      ({ historyRows, storedVersions, historyBytes, fileBytes } = historyStorage(target));
    } finally {
      target.close();
    }
    const status = JSON.parse(await cli(['status', '--json'], env, () => t)) as {
      nonFinal: Record<string, number>;
      refresh: Array<{ tier: string; sessions: number; oldestCheckAgeSeconds: number | null }>;
    };
    const tiers: SteadyStateRun['tiers'] = {};
    for (const r of status.refresh) {
      const tier = (tiers[r.tier] ??= { sessions: 0, oldestCheck: null });
      tier.sessions += r.sessions;
      if (r.oldestCheckAgeSeconds !== null) tier.oldestCheck = Math.max(tier.oldestCheck ?? 0, r.oldestCheckAgeSeconds);
    }
    const hourly: number[] = [];
    for (let i = 0; i + RUNS_PER_HOUR <= requests.length; i++)
      hourly.push(requests.slice(i, i + RUNS_PER_HOUR).reduce((a, b) => a + b, 0) / (REAL_RATE * 3600));
    const total = requests.reduce((a, b) => a + b, 0);
    return {
      sessions,
      nonFinal: Object.values(status.nonFinal).reduce((a, b) => a + b, 0),
      runs,
      requests,
      peakHourShare: hourly.length === 0 ? null : Math.max(...hourly),
      meanHourShare: total / (requests.length * RUN_SECONDS * REAL_RATE),
      tiers,
      checkedAllRuns,
      worstOldest,
      roundRuns,
      lastOldest,
      changes,
      changesSeenNextRun: seen,
      newSessions,
      historyRows,
      storedVersions,
      historyBytes,
      fileBytes,
    };
  } finally {
    await sim.close();
    // IVS_BENCH_KEEP=1 keeps the target to read afterwards.
    if (process.env.IVS_BENCH_KEEP === '1') process.stderr.write(`target kept: ${db}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/** What session_history takes of the target: the pages of session_versions (dbstat; its key's index too, if any). */
function historyStorage(target: Database.Database): {
  historyRows: number;
  storedVersions: number;
  historyBytes: number;
  fileBytes: number;
} {
  const count = (name: string) => target.prepare(`SELECT COUNT(*) FROM ${name}`).pluck().get() as number;
  const historyBytes = target
    .prepare(
      `SELECT COALESCE(SUM(pgsize), 0) FROM dbstat
       WHERE name IN ('session_versions', 'sqlite_autoindex_session_versions_1')`,
    )
    .pluck()
    .get() as number;
  const pages = target.pragma('page_count', { simple: true }) as number;
  const pageSize = target.pragma('page_size', { simple: true }) as number;
  return {
    historyRows: count('session_history'),
    storedVersions: count('session_versions'),
    historyBytes,
    fileBytes: pages * pageSize,
  };
}

export function steadyStateTable(rows: readonly SteadyStateRun[]): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const sorted = (r: SteadyStateRun) => [...r.requests].sort((a, b) => a - b);
  return markdownTable(
    [
      'sessions',
      'non-final',
      'runs (5 min)',
      'new sessions',
      'requests/run mean',
      'requests/run median',
      'requests/run max',
      'budget share, mean',
      'budget share, busiest hour',
      'runs checking all',
      'oldest check, worst run (s)',
      'oldest check, last run (s)',
      'all re-observed by run',
      'per tier: sessions (oldest check, s)',
      'changes seen next run',
      'history versions (stored)',
      'stored bytes/row',
      'history share of file',
    ],
    rows.map((r) => [
      r.sessions,
      r.nonFinal,
      r.runs,
      r.newSessions,
      (r.requests.reduce((a, b) => a + b, 0) / r.requests.length).toFixed(1),
      sorted(r)[Math.floor(r.requests.length / 2)],
      Math.max(...r.requests),
      pct(r.meanHourShare),
      r.peakHourShare === null ? '-' : pct(r.peakHourShare),
      `${r.checkedAllRuns} of ${r.runs}`,
      r.worstOldest,
      r.lastOldest,
      r.roundRuns === null ? `not in ${r.runs}` : `${r.roundRuns} (${(r.roundRuns / RUNS_PER_HOUR).toFixed(1)} h)`,
      Object.entries(r.tiers)
        .map(([tier, t]) => `${tier}: ${t.sessions} (${t.oldestCheck ?? '-'})`)
        .join(', '),
      `${r.changesSeenNextRun} of ${r.changes}`,
      `${r.historyRows} (${r.storedVersions})`,
      r.storedVersions === 0 ? '-' : (r.historyBytes / r.storedVersions).toFixed(1),
      r.fileBytes === 0 ? '-' : pct(r.historyBytes / r.fileBytes),
    ]),
  );
}

// `node dist/bench/steady-state.js --sessions 100000 --runs 300`
if (isEntryPoint(import.meta.url)) {
  const sessions = numberFlag(process.argv, '--sessions') ?? 3000;
  const runs = numberFlag(process.argv, '--runs') ?? 36;
  process.stdout.write(`${steadyStateTable([await steadyState(sessions, runs)])}\n`);
}
