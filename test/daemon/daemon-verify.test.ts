import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runIvsync, spawnIvsync, type Child } from '../helpers/run-cli.js';
import { servedUrl } from '../helpers/served-url.js';
import { useSimulators } from '../helpers/simulators.js';
import { execute, query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { until } from '../helpers/wait.js';
import { parsePrometheusText } from './prometheus-text.js';

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 120, rate: 2000, burst: 2000, seed: 44, nonFinalShare: 0.05 });
const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

describe('the daemon with --verify-every', () => {
  it('verifies after a sync when due, once per period, and counts the findings in /metrics', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir, { verify: { budget: 500 } }),
      IVS_RATE: '2000',
    };
    expect(
      (await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env)).code,
    ).toBe(0);
    expect((await runIvsync(['sync'], env)).code).toBe(0);
    // Lost from the target inside a sealed window: no sync looks there again.
    const [lost] = query<{ service_id: string }>(
      db,
      "SELECT s.service_id FROM authentications s JOIN sync_windows w ON w.resource = 'authentications' AND " +
        "w.status = 'sealed' AND s.created_epoch >= w.window_start AND s.created_epoch < w.window_end LIMIT 1",
    );
    execute(db, 'DELETE FROM authentications WHERE service_id = ?', lost!.service_id);

    const child = spawnIvsync(['daemon', '--schedule', '* * * * * *', '--verify-every', '1h', '--port', '0'], env);
    children.push(child);
    const base = await servedUrl(child);
    const metrics = await until(
      async () => {
        const text = await (await fetch(`${base}/metrics`)).text();
        return /ivsync_runs_total\{command="verify",status="succeeded"\} 1/.test(text)
          ? parsePrometheusText(text)
          : undefined;
      },
      45_000,
      'a verify run in /metrics',
    );
    const findings = metrics.get('ivsync_verify_findings_total')!;
    expect(findings.type).toBe('counter');
    expect(findings.samples.filter((s) => s.value > 0)).toEqual([
      {
        name: 'ivsync_verify_findings_total',
        labels: { account: 'default', resource: 'authentications', kind: 'missing_locally' },
        value: 1,
      },
    ]);
    expect(findings.samples).toHaveLength(6);

    // Later ticks sync again (the second one after the tick that verified has surely asked), but the next verify is an
    // hour away.
    const syncsBefore = query<{ n: number }>(db, "SELECT count(*) AS n FROM sync_runs WHERE status = 'succeeded'")[0]!
      .n;
    await until(
      () =>
        query<{ n: number }>(db, "SELECT count(*) AS n FROM sync_runs WHERE status = 'succeeded'")[0]!.n >=
        syncsBefore + 2
          ? true
          : undefined,
      30_000,
      'two more syncs',
    );
    expect(query(db, 'SELECT account, status, findings, budget, repaired FROM verify_runs')).toEqual([
      { account: 'default', status: 'succeeded', findings: 1, budget: 500, repaired: null },
    ]);
    expect(query(db, 'SELECT kind, service_id FROM verify_findings')).toEqual([
      { kind: 'missing_locally', service_id: lost!.service_id },
    ]);
    // Reported, not repaired: the daemon leaves that to `ivsync verify --repair`.
    expect(query(db, 'SELECT count(*) AS n FROM authentications WHERE service_id = ?', lost!.service_id)).toEqual([
      { n: 0 },
    ]);
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
  });
});
