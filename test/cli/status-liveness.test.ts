import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIvsync, spawnIvsync } from '../helpers/run-cli.js';
import { servedUrl } from '../helpers/served-url.js';
import { useSimulators } from '../helpers/simulators.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_START } from '../helpers/truth.js';
import { until } from '../helpers/wait.js';

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 50, seed: 7, rate: 500, burst: 500 });

interface StatusJson {
  schedule: { expression: string; daemons: number; nextRun: string | null };
  leases: Array<{ name: string; stale: boolean }>;
}

describe('status and the daemons of a target', () => {
  it('shows a next run and live leases only while a daemon runs; a killed daemon leaves stale leases', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const IVS_DB = `sqlite:${db}`;
    const IVS_CONFIG = writeConfig(dir);
    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB, IVS_CONFIG, IVS_RATE: '500' };
    const status = async () => {
      const r = await runIvsync(['status', '--json'], env);
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout) as StatusJson;
    };

    const args = ['daemon', '--schedule', '* * * * * *', '--since', String(HISTORY_START), '--port', '0'];
    const child = spawnIvsync(args, env);
    await servedUrl(child);
    const succeeded = "SELECT count(*) AS n FROM sync_runs WHERE status = 'succeeded'";
    const synced = () => query<{ n: number }>(db, succeeded)[0]!.n;
    await until(() => (synced() > 0 ? true : undefined), 30_000, 'a sync');
    const running = await status();
    expect(running.schedule.daemons).toBe(1);
    expect(running.schedule.nextRun).not.toBeNull();
    const daemonLeases = running.leases.filter((l) => l.name.startsWith('tick:') || l.name.startsWith('daemon:'));
    expect(daemonLeases.every((l) => !l.stale)).toBe(true);

    child.kill('SIGKILL');
    await child.exited;
    const after = await status();
    expect(after.schedule).toMatchObject({ daemons: 0, nextRun: null });
    const names = after.leases.map((l) => l.name);
    expect(names.some((n) => n.startsWith('tick:'))).toBe(true);
    expect(after.leases.every((l) => l.stale)).toBe(true);
    const text = (await runIvsync(['status'], env)).stdout;
    expect(text).toMatch(/no daemon runs on this target/);
    expect(text).toMatch(/stale: its holder is gone/);
    expect(text).not.toMatch(/next run/);
  }, 60_000);

  it('with no daemon ever, shows no next run', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const db = `sqlite:${join(dir, 'x.sqlite')}`;
    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: db, IVS_CONFIG: writeConfig(dir) };
    expect((await runIvsync(['sync', '--since', String(HISTORY_START)], env)).code).toBe(0);
    const r = JSON.parse((await runIvsync(['status', '--json'], env)).stdout) as StatusJson;
    expect(r.schedule).toMatchObject({ expression: '*/5 * * * *', daemons: 0, nextRun: null });
    expect(r.leases).toEqual([]);
  });
});
