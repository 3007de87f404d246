import { describe, expect, it } from 'vitest';
import { spawnIvsync, runIvsync, type Child } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { until } from '../helpers/wait.js';
import { eachTarget } from '../targets/each-target.js';
import { readTarget } from '../targets/read-target.js';
import { afterEach } from 'vitest';

const simulator = useSimulators({ sessions: 150, seed: 81, rate: 10_000, burst: 10_000, nonFinalShare: 0.2 });
const tempDir = useTempDir();
const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
const DAY = 86_400;

/** One daemon run as its debug log tells it: the requests it sent, in order, and its `sync finished` line. */
interface LoggedRun {
  requests: Array<Record<string, unknown>>;
  finished: Record<string, unknown>;
}

/**
 * The daemon's runs, in order, from its log (runs are sequential, so a run's requests are the lines before its `sync
 * finished`).
 */
function loggedRuns(log: string): LoggedRun[] {
  const runs: LoggedRun[] = [];
  let requests: Array<Record<string, unknown>> = [];
  for (const line of log.split('\n')) {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (entry.msg === 'request') requests.push(entry);
    if (entry.msg === 'sync finished') {
      runs.push({ requests, finished: entry });
      requests = [];
    }
  }
  return runs;
}

/**
 * What a run spent its requests on (route, status, attempt) and its outcome per resource: evidence for a failure
 * message.
 */
function spentOn(run: LoggedRun | undefined, index: number): string {
  if (run === undefined) return `run ${index + 1}: not in the log`;
  const requests = run.requests.map((l) => `${l.method} ${l.route} ${l.status ?? l.error} attempt ${l.attempt}`);
  return `run ${index + 1}: ${requests.join('; ')}; outcomes ${JSON.stringify(run.finished.outcomes)}`;
}

eachTarget((dialect, target) => {
  describe.skipIf(dialect === 'duckdb')('an idle daemon', () => {
    it('never spends more requests on a run than on its second, and checks every non-final session', async () => {
      const now = Math.floor(Date.now() / 1000);
      const sim = await simulator({ from: now - 20 * DAY, to: now - 60 });
      const config = writeConfig(tempDir(), {
        crawl: { windowSeconds: DAY, concurrency: 1, overlapSeconds: DAY },
        refresh: { hotSeconds: 3 * DAY },
      });
      // crawl.since stays in the daemon's environment for every tick, as in a deployment.
      const env = {
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: target().url,
        IVS_CONFIG: config,
        IVS_RATE: '10000',
        IVS_SINCE: String(now - 21 * DAY),
      };
      // The daemon's requests are logged one by one, so a dearer run says what it spent its requests on.
      const daemonEnv = { ...env, IVS_LOG_LEVEL: 'debug' };
      expect((await runIvsync(['sync'], env)).code).toBe(0);

      const daemon = spawnIvsync(['daemon', '--schedule', '* * * * * *'], daemonEnv);
      children.push(daemon);
      const succeeded = async () =>
        Number(
          (await readTarget(target().url, "SELECT count(*) AS n FROM sync_runs WHERE status = 'succeeded'"))[0]!.n,
        );
      // The first sync and ten of the daemon's.
      await until(async () => (await succeeded()) >= 11, {
        what: 'ten daemon runs',
        limitMs: 60_000,
        everyMs: 200,
        child: daemon,
      });
      daemon.kill('SIGTERM');
      expect((await daemon.exited).code).toBe(0);

      const runs = await readTarget(
        target().url,
        "SELECT requests FROM sync_runs WHERE status = 'succeeded' ORDER BY started_at",
      );
      const idle = runs.slice(1, 11).map((r) => Number(r.requests));
      expect(idle).toHaveLength(10);
      // A retry is the transport's answer to a failure, not growth: an attempt after the first (its
      // log line says which attempt it was) is taken off the run's count, and only there.
      const logged = loggedRuns(daemon.stderr());
      const retries = idle.map((_, i) => logged[i]?.requests.filter((r) => Number(r.attempt) > 1).length ?? 0);
      const calls = idle.map((requests, i) => requests - retries[i]!);
      const dearer = calls.flatMap((n, i) => (i >= 2 && n > calls[1]! ? [i] : []));
      expect(
        dearer,
        `requests per idle run: ${idle.join(', ')}; retries: ` +
          `${retries.join(', ')}\n${dearer.map((i) => spentOn(logged[i], i)).join('\n')}`,
      ).toEqual([]);
      // Checking them all fits the budget: each run checked every non-final session, old or young.
      const count = async (sql: string) => Number((await readTarget(target().url, sql))[0]!.n);
      const nonFinal = await count(
        'SELECT (SELECT COUNT(*) FROM authentications WHERE NOT result_final) + (SELECT COUNT(*) FROM ' +
          'fingerprints WHERE NOT result_final) AS n',
      );
      const checked = await count('SELECT COUNT(*) AS n FROM session_refresh');
      expect(nonFinal).toBeGreaterThan(10);
      expect(checked, `${checked} of ${nonFinal} non-final sessions checked`).toBe(nonFinal);
    });
  });
});
