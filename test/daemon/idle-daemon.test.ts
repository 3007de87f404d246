import { describe, expect, it } from 'vitest';
import { spawnIvsync, runIvsync, type Child } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { eachTarget } from '../targets/each-target.js';
import { readTarget } from '../targets/read-target.js';
import { until } from './wait-for.js';
import { afterEach } from 'vitest';

const simulator = useSimulators({ sessions: 150, seed: 81, rate: 10_000, burst: 10_000, nonFinalShare: 0.2 });
const tempDir = useTempDir();
const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
const DAY = 86_400;

/**
 * What daemon run `run` (1 for the first) spent its requests on, from the
 * daemon's debug log: its requests (route, status, attempt) and its outcome
 * per resource. Evidence for a failure message only; nothing asserts on it.
 */
function spentOn(log: string, run: number): string {
  const lines = log.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
  const finished = lines.map((l, i) => (l.msg === 'sync finished' ? i : -1)).filter((i) => i >= 0);
  const from = run >= 2 ? finished[run - 2]! + 1 : 0;
  const to = finished[run - 1] ?? lines.length - 1;
  const requests = lines.slice(from, to).filter((l) => l.msg === 'request').map((l) => `${l.method} ${l.route} ${l.status ?? l.error} attempt ${l.attempt}`);
  return `run ${run}: ${requests.join('; ')}; outcomes ${JSON.stringify(lines[to]?.outcomes)}`;
}

eachTarget((dialect, target) => {
  describe.skipIf(dialect === 'duckdb')('an idle daemon', () => {
    it('never spends more requests on a run than on its second, and does not re-check the old sessions every run', async () => {
      const now = Math.floor(Date.now() / 1000);
      const sim = await simulator({ from: now - 20 * DAY, to: now - 60 });
      const config = writeConfig(tempDir(), { crawl: { windowSeconds: DAY, concurrency: 1, overlapSeconds: DAY }, refresh: { hotSeconds: 3 * DAY } });
      // crawl.since stays in the daemon's environment for every tick, as in a deployment.
      const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: target().url, IVS_CONFIG: config, IVS_RATE: '10000', IVS_SINCE: String(now - 21 * DAY) };
      // The daemon's requests are logged one by one, so a dearer run says what it spent its requests on.
      const daemonEnv = { ...env, IVS_LOG_LEVEL: 'debug' };
      expect((await runIvsync(['sync'], env)).code).toBe(0);

      const daemon = spawnIvsync(['daemon', '--schedule', '* * * * * *'], daemonEnv);
      children.push(daemon);
      await until(() => ((daemon.stderr().match(/"msg":"sync finished"/g)?.length ?? 0) >= 10 ? true : undefined), 60_000, 'ten daemon runs');
      daemon.kill('SIGTERM');
      expect((await daemon.exited).code).toBe(0);

      const runs = await readTarget(target().url, "SELECT requests FROM sync_runs WHERE status = 'succeeded' ORDER BY started_at");
      const idle = runs.slice(1, 11).map((r) => Number(r.requests));
      expect(idle).toHaveLength(10);
      const dearer = idle.map((requests, i) => ({ run: i + 1, requests })).filter((r, i) => i >= 2 && r.requests > idle[1]!);
      expect(dearer, `requests per idle run: ${idle.join(', ')}\n${dearer.map((r) => spentOn(daemon.stderr(), r.run)).join('\n')}`).toEqual([]);
      // The sessions past the hot tier have their checks spread over a day: ten runs on, few of them were polled.
      const count = async (sql: string) => Number((await readTarget(target().url, sql))[0]!.n);
      const nonFinal = await count('SELECT (SELECT COUNT(*) FROM authentications WHERE NOT result_final) + (SELECT COUNT(*) FROM fingerprints WHERE NOT result_final) AS n');
      const checkedOld = await count("SELECT COUNT(*) AS n FROM session_refresh WHERE tier = 'backoff'");
      expect(nonFinal).toBeGreaterThan(10);
      expect(checkedOld, `${checkedOld} of ${nonFinal} non-final sessions polled on back-off`).toBeLessThan(nonFinal / 2);
    });
  });
});
