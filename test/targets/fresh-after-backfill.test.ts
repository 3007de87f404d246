import { describe, expect, it } from 'vitest';
import { runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { eachTarget } from './each-target.js';
import { readTarget } from './read-target.js';

const DAY = 86_400;
/**
 * The bucket's rate: the default budget is a tenth of it over the default five-minute schedule (1,500 requests at
 * 50/s), far more than checking every non-final session of this history costs (a page per 25 sessions at most).
 */
const RATE = '50';
const simulator = useSimulators({ sessions: 500, seed: 18, rate: 1_000, burst: 1_000, nonFinalShare: 0.2 });

type Resource = 'authentications' | 'fingerprints';
interface Change {
  resource: Resource;
  serviceId: string;
  final: boolean;
  flag: string | null;
}

/** `n` non-final sessions of a resource spread over the stored history, oldest to youngest. */
async function ofEveryAge(url: string, resource: Resource, n: number): Promise<string[]> {
  const rows = await readTarget(
    url,
    `SELECT service_id FROM ${resource} WHERE NOT result_final ORDER BY created_epoch`,
  );
  expect(rows.length).toBeGreaterThan(n);
  return Array.from({ length: n }, (_, i) => String(rows[Math.floor((i * (rows.length - 1)) / (n - 1))]!.service_id));
}

async function stored(url: string, change: Change): Promise<{ final: boolean; flag: string | null }> {
  const [row] = await readTarget(url, `SELECT result_final, flag FROM ${change.resource} WHERE service_id = ?`, [
    change.serviceId,
  ]);
  return {
    final: row!.result_final === true || Number(row!.result_final) === 1,
    flag: (row!.flag as string | null) ?? null,
  };
}

eachTarget((dialect, target) => {
  // SQLite and PostgreSQL: the refresh's choices do not depend on the target, and DuckDB's writes are the slow part.
  describe.skipIf(dialect === 'duckdb')('the first sync after a year backfilled', () => {
    it.each([
      { name: 'API 1.4', backfill: [['1.4', 0, 1]], sync: '1.4' },
      { name: 'API 2', backfill: [['2', 0, 1]], sync: '2' },
      {
        name: 'a mixed history, v1.4 then v2, synced over v2',
        backfill: [
          ['1.4', 0, 0.5],
          ['2', 0.5, 1],
        ],
        sync: '2',
      },
    ] as const)('shows every change to non-final sessions of every age: $name', async ({ backfill, sync }) => {
      const now = Math.floor(Date.now() / 1000);
      const from = now - 365 * DAY;
      const sim = await simulator({ from, to: now - 60 });
      const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: target().url, IVS_RATE: RATE };
      for (const [version, a, b] of backfill) {
        const span = [
          '--from',
          String(Math.floor(from + a * 365 * DAY) - 1),
          '--to',
          String(Math.ceil(from + b * 365 * DAY) + (b === 1 ? 60 : 0)),
        ];
        const done = await runIvsync(['backfill', ...span, '--api-version', version], env);
        expect(done.code, done.stderr.slice(-600)).toBe(0);
      }

      // At the service: non-final sessions of every age become final, and others change flag.
      const changes: Change[] = [];
      for (const resource of ['authentications', 'fingerprints'] as const) {
        const ids = await ofEveryAge(target().url, resource, 12);
        ids.forEach((serviceId, i) => {
          const record = i % 3 === 2 ? sim.world.setFlag(serviceId, 'review') : sim.world.finalize(serviceId);
          changes.push({ resource, serviceId, final: record.final, flag: record.flag ?? null });
        });
      }

      const synced = await runIvsync(['sync', '--json', '--api-version', sync], env);
      expect(synced.code, synced.stderr.slice(-600)).toBe(0);
      const missed: string[] = [];
      for (const change of changes) {
        const row = await stored(target().url, change);
        if (row.final !== change.final || row.flag !== change.flag)
          missed.push(`${change.resource} ${change.serviceId}: ${JSON.stringify(row)}`);
      }
      expect(missed, `${missed.length} of ${changes.length} changes not in their rows`).toEqual([]);
      // And it says what it spent: within the budget, nothing left for later.
      const report = JSON.parse(synced.stdout) as {
        outcomes: Array<{ refreshRequests: number; refreshBudget: number; refreshDeferred: number }>;
      };
      for (const o of report.outcomes) {
        expect(o.refreshRequests).toBeLessThanOrEqual(o.refreshBudget);
        expect(o.refreshDeferred).toBe(0);
      }
    });
  });
});
