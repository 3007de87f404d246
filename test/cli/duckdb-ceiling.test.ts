import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliError, runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { readTarget } from '../targets/read-target.js';

/*
 * What a DuckDB checkpoint holds grows with the history, and a history past
 * what the target can take used to fail hours in. store.duckdbMaxSessions
 * stops a backfill (or the first sync) whose first pages estimate more, with
 * one line, the run recorded failed, and what it committed kept. Here the
 * ceiling is lowered to fit a small simulated history.
 */

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 3000, rate: 5000, burst: 5000, otherOwnerSessions: 0 });

async function backfill(target: string, maxSessions: number) {
  const sim = await simulator();
  const dir = tempDir();
  const url = `${target}:${join(dir, `t.${target}`)}`;
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_CONFIG: writeConfig(dir, { store: { duckdbMaxSessions: maxSessions } }),
  };
  const args = [
    'backfill',
    '--db',
    url,
    '--from',
    String(HISTORY_START),
    '--to',
    String(HISTORY_END),
    '--rate',
    '5000',
  ];
  return { url, result: await runIvsync(args, env), requests: () => sim.stats.requests };
}

describe('store.duckdbMaxSessions', () => {
  it('stops a DuckDB backfill its first pages show too large: one line, the run failed, its rows kept', async () => {
    const { url, result, requests } = await backfill('duckdb', 1000);
    expect(result.code).toBe(1);
    const error = cliError(result.stderr)!;
    expect(error.code).toBe('HISTORY_TOO_LARGE');
    expect(error.message).toMatch(/^this history holds about [\d,]+ sessions, past the 1,000 a DuckDB target/);
    const estimate = Number(/about ([\d,]+) sessions/.exec(error.message)![1]!.replaceAll(',', ''));
    // The history holds 3,000: the estimate from 40 pages is within a sixth of it.
    expect(estimate).toBeGreaterThan(2500);
    expect(estimate).toBeLessThan(3500);
    const runs = await readTarget(url, 'SELECT status, error, items_written FROM sync_runs');
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe('failed');
    expect(String(runs[0]!.error)).toBe(error.message);
    const [{ n }] = (await readTarget(
      url,
      'SELECT (SELECT COUNT(*) FROM authentications) + (SELECT COUNT(*) FROM fingerprints) AS n',
    )) as [{ n: unknown }];
    // Stopped early: a fraction of the 120 pages the history takes, and every session it wrote kept and counted.
    expect(requests()).toBeLessThan(90);
    expect(Number(n)).toBeGreaterThan(0);
    expect(Number(n)).toBe(Number(runs[0]!.items_written));
  });

  it('leaves a SQLite target alone, and 0 lets a DuckDB backfill run', async () => {
    for (const [target, max] of [
      ['sqlite', 1000],
      ['duckdb', 0],
    ] as const) {
      const { url, result } = await backfill(target, max);
      expect(result.code, result.stderr).toBe(0);
      const [{ n }] = (await readTarget(url, 'SELECT COUNT(*) AS n FROM sync_runs WHERE status = ?', [
        'succeeded',
      ])) as [{ n: unknown }];
      expect(Number(n)).toBe(1);
    }
  });
});
