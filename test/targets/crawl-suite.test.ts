import { expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { runIvsync, spawnIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { eachTarget } from './each-target.js';
import { readTarget } from './read-target.js';
import { storedFacts, truthFacts, type SessionResource } from './truth-rows.js';

/*
 * One crawl suite, run unchanged against SQLite, DuckDB and PostgreSQL: what
 * the store does must not depend on which target it writes.
 */

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 200, rate: 2000, burst: 2000, seed: 21 });

function envFor(sim: RunningSimulator, db: string, apiVersion: '1.4' | '2', rate = 2000): Record<string, string> {
  const config = writeConfig(tempDir(), { crawl: { windowSeconds: 14 * 86_400, concurrency: 6, overlapSeconds: 86_400 } });
  return { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: db, IVS_CONFIG: config, IVS_RATE: String(rate), IVS_API_VERSION: apiVersion };
}

const backfillArgs = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];
const RESOURCES: readonly SessionResource[] = ['authentications', 'fingerprints'];

async function expectEqualsTruth(db: string, sim: RunningSimulator, apiVersion: '1.4' | '2'): Promise<void> {
  for (const resource of RESOURCES) {
    const truth = truthFacts(sim, resource, apiVersion);
    expect(truth.length).toBeGreaterThan(0);
    expect(await storedFacts(db, resource)).toEqual(truth);
  }
}

/** Resolves once the simulator has received `n` requests or `done` settled (polls its counter; no fixed sleeps). */
async function afterRequests(sim: RunningSimulator, n: number, done: Promise<unknown>): Promise<void> {
  let finished = false;
  void done.then(() => (finished = true));
  while (sim.stats.requests < n && !finished) await new Promise((r) => setTimeout(r, 2));
}

eachTarget((dialect, target) => {
  it.each(['1.4', '2'] as const)('a full backfill over API %s equals the simulator truth', async (apiVersion) => {
    const sim = await simulator();
    const { url } = target();
    const result = await runIvsync(backfillArgs, envFor(sim, url, apiVersion));
    expect(result.stderr).not.toMatch(/ivsync: /);
    expect(result.code).toBe(0);
    await expectEqualsTruth(url, sim, apiVersion);
    const versions = await readTarget(url, 'SELECT DISTINCT api_version FROM authentications');
    expect(versions).toEqual([{ api_version: apiVersion }]);
  });

  it('resumes a backfill killed with SIGKILL: nothing lost, nothing twice', async () => {
    // Slow enough (rate and latency) that the kills land mid-backfill.
    const sim = await simulator({ sessions: 500, seed: 22, rate: 150, burst: 20, latencyMs: [2, 8] });
    const { url } = target();
    const env = envFor(sim, url, '1.4', 150);
    // A killed run cannot give its account lease back: the next run waits until the lease is stale (1 s).
    const args = [...backfillArgs, '--wait', '--lease-ttl', '1'];
    let kills = 0;
    for (const at of [12, 25]) {
      const child = spawnIvsync(args, env);
      await afterRequests(sim, sim.stats.requests + at, child.exited);
      child.kill('SIGKILL');
      if ((await child.exited).signal === 'SIGKILL') kills++;
    }
    expect(kills).toBeGreaterThan(0);
    const final = await spawnIvsync(args, env).exited;
    expect(final.stderr).not.toMatch(/ivsync: /);
    expect(final.code).toBe(0);
    await expectEqualsTruth(url, sim, '1.4');
    const open = await readTarget(url, "SELECT count(*) AS n FROM sync_windows WHERE status <> 'done'");
    expect(Number(open[0]!.n)).toBe(0);
  });

  it('merges a v1.4 then a v2 history of one world: one row per session, the newer observation wins', async () => {
    const sim = await simulator({ nonFinalShare: 0.2 });
    const { url } = target();
    expect((await runIvsync(backfillArgs, envFor(sim, url, '1.4'))).code).toBe(0);

    // Changed at the service after the v1.4 crawl: the v2 observations of these are newer.
    const nonFinal = truthFacts(sim, 'authentications', '1.4').filter((s) => s.result_final === false);
    expect(nonFinal.length).toBeGreaterThan(2);
    const changed = nonFinal.slice(0, 3).map((s) => s.service_id);
    sim.world.finalize(changed[0]!);
    sim.world.finalize(changed[1]!, 'unidentified');
    sim.world.setResult(changed[2]!, 'unidentified', false);

    const result = await runIvsync(backfillArgs, envFor(sim, url, '2'));
    expect(result.stderr).not.toMatch(/ivsync: /);
    expect(result.code).toBe(0);
    await expectEqualsTruth(url, sim, '2');
    for (const resource of RESOURCES) {
      const counts = await readTarget(url, `SELECT count(*) AS n, count(DISTINCT service_id) AS d FROM ${resource}`);
      expect(Number(counts[0]!.n)).toBe(truthFacts(sim, resource, '2').length);
      expect(Number(counts[0]!.d)).toBe(Number(counts[0]!.n));
    }
    const rows = await readTarget(url, `SELECT service_id, api_version, result_id, result_final FROM authentications WHERE service_id IN (?, ?, ?)`, changed);
    const byId = new Map(rows.map((r) => [String(r.service_id), r]));
    for (const id of changed) expect(byId.get(id)?.api_version).toBe('2');
    expect(Boolean(byId.get(changed[0]!)?.result_final)).toBe(true);
    expect(byId.get(changed[1]!)?.result_id).toBe('unidentified');
    expect(Boolean(byId.get(changed[2]!)?.result_final)).toBe(false);
  });

  it('keeps malformed items in rejected_items and stores everything else', async () => {
    const sim = await simulator({ sessions: 80 });
    sim.world.injectBadItem('authentications', 'missing_service_id', { epoch: HISTORY_START + 86_400 * 10 });
    const wrong = sim.world.injectBadItem('authentications', 'final_not_boolean', { epoch: HISTORY_START + 86_400 * 40 });
    const { url } = target();
    const result = await runIvsync(backfillArgs, envFor(sim, url, '1.4'));
    expect(result.code).toBe(0);
    const rejected = await readTarget(url, 'SELECT resource, service_id, reason, raw FROM rejected_items ORDER BY reason');
    expect(rejected).toHaveLength(2);
    expect(rejected.map((r) => r.resource)).toEqual(['authentications', 'authentications']);
    expect(rejected.map((r) => String(r.reason)).join(' ')).toMatch(/service_id/);
    expect(rejected.map((r) => String(r.reason)).join(' ')).toMatch(/final/);
    // Every target gives the text as received.
    const raws = rejected.map((r) => r.raw as string);
    expect(raws.some((raw) => raw.includes(wrong.serviceId))).toBe(true);
    await expectEqualsTruth(url, sim, '1.4');
    expect(dialect).toMatch(/sqlite|duckdb|postgres/);
  });
});
