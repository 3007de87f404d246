import { expect, it } from 'vitest';
import { runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { execute, query } from '../helpers/sqlite-target.js';
import { sqliteCliEnv, useTempDir } from '../helpers/temp-dir.js';

const simulator = useSimulators({ sessions: 400, seed: 23, rate: 5_000, burst: 5_000, nonFinalShare: 0.25 });
const tempDir = useTempDir();
const DAY = 86_400;
const RUN = 300;
/**
 * Requests per run for the refresh, per account, split over the resources by their non-final sessions: far fewer
 * than checking them all costs.
 */
const BUDGET = 8;

/** Seconds since each non-final session was last observed: its last check, else when a pass stored it. */
function ages(db: string, now: number): number[] {
  const rows = query<{ seen: string }>(
    db,
    `SELECT COALESCE(r.checked_at, s.last_synced_at) AS seen FROM (
       SELECT 'authentications' AS resource, service_id, last_synced_at FROM authentications WHERE NOT result_final
       UNION ALL SELECT 'fingerprints', service_id, last_synced_at FROM fingerprints WHERE NOT result_final
     ) s LEFT JOIN session_refresh r ON r.resource = s.resource AND r.service_id = s.service_id`,
  );
  return rows.map((r) => now - Date.parse(r.seen) / 1000);
}

it(
  'spends the whole budget on the stalest sessions when ' + 'it cannot check them all: the oldest check stays bounded',
  async () => {
    const now = Math.floor(Date.now() / 1000);
    const sim = await simulator({ from: now - 365 * DAY, to: now - 60 });
    // Daily windows: a part paged again holds few non-final sessions, so most checks are GETs, one a request.
    const { db, env } = sqliteCliEnv(sim.url, tempDir(), {
      crawl: { windowSeconds: DAY, overlapSeconds: 3600 },
      refresh: { maxRequestsPerRun: BUDGET },
    });
    let t = now;
    expect(
      (
        await runIvsync(
          ['backfill', '--from', String(now - 366 * DAY), '--to', String(now)],
          env,
          undefined,
          () => t * 1000,
        )
      ).code,
    ).toBe(0);
    const nonFinal = ages(db, t).length;
    // Each run checks about BUDGET sessions (a GET checks one, a paged part about as many as it costs), so every
    // session comes round within this many runs. A part that does not fit what is left leaves a request unspent,
    // so a run may check one part fewer: its age may pass the round by up to two runs, never more.
    const rounds = Math.ceil(nonFinal / BUDGET);
    expect(rounds).toBeGreaterThan(4);
    const oldest: number[] = [];
    for (let run = 1; run <= rounds + 4; run++) {
      t += RUN;
      const result = await runIvsync(['sync', '--json'], env, undefined, () => t * 1000);
      expect(result.code, result.stderr.slice(-600)).toBe(0);
      const report = JSON.parse(result.stdout) as {
        outcomes: Array<{ resource: string; refreshRequests: number; refreshBudget: number }>;
      };
      // Nothing is left unspent while sessions wait, and no more is sent: each resource spends its share whole
      // (a part's pages are counted from the sessions stored in it; one that does not fit leaves a request or two).
      for (const o of report.outcomes) {
        expect(o.refreshRequests).toBeLessThanOrEqual(o.refreshBudget);
        expect(o.refreshRequests).toBeGreaterThanOrEqual(o.refreshBudget - 1);
      }
      // The budget is split by non-final sessions, seven in ten of them authentications: not evenly.
      const budget = (resource: string) => report.outcomes.find((o) => o.resource === resource)!.refreshBudget;
      expect(budget('authentications') + budget('fingerprints')).toBe(BUDGET);
      expect(budget('authentications')).toBeGreaterThan(budget('fingerprints') + 1);
      oldest.push(Math.max(...ages(db, t)));
    }
    const bound = (rounds + 2) * RUN;
    expect(
      oldest.slice(rounds).filter((age) => age > bound),
      `oldest check per run (s): ${oldest.join(', ')}`,
    ).toEqual([]);
  },
);

it('sends at most its budget where a window holds its sessions in a bunch its last pass could not show', async () => {
  const now = Math.floor(Date.now() / 1000);
  const start = now - 30 * DAY;
  const sim = await simulator({ from: start, to: now - 60, sessions: 6000 });
  const { db, env } = sqliteCliEnv(sim.url, tempDir(), { refresh: { maxRequestsPerRun: 20 } });
  // The backfill starts before the history: the window holding the history's first day spans days before it, and its
  // density (its items over all of its span) says a part of that day costs a fraction of its pages.
  const backfill = await runIvsync(['backfill', '--from', String(start - 6 * DAY), '--to', String(now)], env);
  expect(backfill.code, backfill.stderr.slice(-600)).toBe(0);
  // That day's non-final sessions are the stalest: the run's refresh goes to them first.
  for (const table of ['authentications', 'fingerprints'])
    execute(
      db,
      `UPDATE ${table} SET last_synced_at = '2000-01-01T00:00:00.000000Z' WHERE created_epoch < ${start + DAY}`,
    );
  const result = await runIvsync(['sync', '--json'], env);
  expect(result.code, result.stderr.slice(-600)).toBe(0);
  const report = JSON.parse(result.stdout) as {
    outcomes: Array<{ resource: string; refreshRequests: number; refreshBudget: number }>;
  };
  for (const o of report.outcomes) expect(o.refreshRequests, o.resource).toBeLessThanOrEqual(o.refreshBudget);
  expect(report.outcomes.reduce((n, o) => n + o.refreshRequests, 0)).toBeGreaterThan(15);
});
