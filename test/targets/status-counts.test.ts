import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { executeOn } from '../helpers/execute-on.js';
import { runIvsync } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { eachTarget } from './each-target.js';
import { readTarget } from './read-target.js';

const tempDir = useTempDir();
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ sessions: 200, rate: 5000, burst: 5000, seed: 23, nonFinalShare: 0.3 });
});
afterAll(async () => {
  await sim?.close();
});

const RESOURCES = ['authentications', 'fingerprints'] as const;

/**
 * `status` counts the non-final and the missing sessions from their partial
 * indexes (session-tables.ts): the figures are the tables', final, non-final,
 * unknown and missing sessions mixed, on every target.
 */
eachTarget((dialect, target) => {
  it('status counts the non-final and the missing sessions the tables hold', async () => {
    const { url } = target();
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: url,
      IVS_CONFIG: writeConfig(tempDir()),
      IVS_RATE: '5000',
    };
    const backfill = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];
    expect((await runIvsync(backfill, env)).code).toBe(0);
    const now = dialect === 'sqlite' ? "'2026-12-01T00:00:00.000000Z'" : "TIMESTAMPTZ '2026-12-01 00:00:00+00'";
    // Some of each kind gone, and one whose result is unknown: none of those is a non-final session to refresh.
    await executeOn(
      url,
      RESOURCES.flatMap((table) => [
        `UPDATE ${table} SET missing_since = ${now} WHERE service_id IN ` +
          `(SELECT service_id FROM ${table} WHERE result_final = FALSE ORDER BY service_id LIMIT 3)`,
        `UPDATE ${table} SET missing_since = ${now} WHERE service_id IN ` +
          `(SELECT service_id FROM ${table} WHERE result_final = TRUE ORDER BY service_id LIMIT 2)`,
        `UPDATE ${table} SET result_final = NULL WHERE service_id IN ` +
          `(SELECT service_id FROM ${table} WHERE result_final = FALSE AND missing_since IS NULL ` +
          'ORDER BY service_id LIMIT 1)',
      ]),
    );

    const status = await runIvsync(['status', '--json'], env);
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout) as {
      nonFinal: Record<string, number>;
      missing: Record<string, number>;
    };
    for (const table of RESOURCES) {
      const [row] = await readTarget(
        url,
        `SELECT SUM(CASE WHEN result_final IS NOT NULL AND NOT result_final AND missing_since IS NULL
                    THEN 1 ELSE 0 END) AS non_final,
                SUM(CASE WHEN missing_since IS NOT NULL THEN 1 ELSE 0 END) AS missing
         FROM ${table}`,
      );
      expect(Number(row!.missing), table).toBe(5);
      expect(Number(row!.non_final), table).toBeGreaterThan(0);
      expect(report.nonFinal[table], table).toBe(Number(row!.non_final));
      expect(report.missing[table], table).toBe(Number(row!.missing));
    }
  });
});
