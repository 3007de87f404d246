import { expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { cliError, runIvsync, spawnIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { afterRequests, whenSeen } from '../helpers/wait.js';
import { eachTarget } from './each-target.js';
import { readTarget } from './read-target.js';
import { storedFacts, truthFacts, type SessionResource } from './truth-rows.js';

/*
 * One crawl suite, run unchanged against SQLite, DuckDB and PostgreSQL: what
 * the store does must not depend on which target it writes. The simulator
 * hands out string cursors (as the spec shows) everywhere and, for a backfill,
 * a resumed backfill and a sync, arrays of strings (as the service's SDK
 * models them); the other tests do not depend on the cursor's shape.
 */

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 200, rate: 2000, burst: 2000, seed: 21 });

const CRAWL = { windowSeconds: 14 * 86_400, concurrency: 6, overlapSeconds: 86_400 };
/** Windows of a quarter: a few pages each in the small test worlds, so the cursors are followed and resumed. */
const PAGED_CRAWL = { ...CRAWL, windowSeconds: 91 * 86_400 };

function envFor(
  sim: RunningSimulator,
  db: string,
  apiVersion: '1.4' | '2',
  rate = 2000,
  crawl: Record<string, number> = CRAWL,
): Record<string, string> {
  const config = writeConfig(tempDir(), { crawl });
  return {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: db,
    IVS_CONFIG: config,
    IVS_RATE: String(rate),
    IVS_API_VERSION: apiVersion,
  };
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

const isArrayCursor = (cursor: unknown): boolean =>
  Array.isArray(cursor) && cursor.length > 0 && cursor.every((p) => typeof p === 'string');
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

eachTarget((dialect, target) => {
  it.each([
    ['1.4', 'string', CRAWL],
    ['2', 'string', CRAWL],
    ['1.4', 'array', PAGED_CRAWL],
  ] as const)(
    'a full backfill over API %s with %s cursors equals the simulator truth',
    async (apiVersion, cursorStyle, crawl) => {
      const sim = await simulator({ cursorStyle });
      const { url } = target();
      const result = await runIvsync(backfillArgs, envFor(sim, url, apiVersion, 2000, crawl));
      expect(cliError(result.stderr)).toBeUndefined();
      expect(result.code).toBe(0);
      await expectEqualsTruth(url, sim, apiVersion);
      const versions = await readTarget(url, 'SELECT DISTINCT api_version FROM authentications');
      expect(versions).toEqual([{ api_version: apiVersion }]);
      if (cursorStyle === 'array') expect(sim.stats.searches.some((s) => isArrayCursor(s.cursor))).toBe(true);
    },
  );

  it('resumes an interrupted backfill from an array checkpoint, sending the array back as it came', async () => {
    // Paced so the interruption lands while windows of four pages or so are mid-pass; no splits, so they stay mid-pass.
    const sim = await simulator({
      sessions: 400,
      seed: 23,
      cursorStyle: 'array',
      rate: 100,
      burst: 10,
      latencyMs: [2, 8],
    });
    const { url } = target();
    const env = envFor(sim, url, '1.4', 100, {
      ...PAGED_CRAWL,
      windowSeconds: 122 * 86_400,
      concurrency: 3,
      splitAfterPages: 1000,
    });
    const stop = new AbortController();
    const first = runIvsync(backfillArgs, env, stop.signal);
    // A request carrying a cursor means the page that handed it out is committed (pages are fetched lazily).
    await whenSeen(() => sim.stats.searches.some((s) => s.cursor !== null), first);
    stop.abort();
    expect((await first).code).toBe(3);

    const checkpoints = await readTarget(
      url,
      "SELECT cursor FROM sync_windows WHERE status = 'running' AND cursor IS NOT NULL",
    );
    expect(checkpoints.length).toBeGreaterThan(0);
    const stored = checkpoints.map((r) => JSON.parse(String(r.cursor)) as unknown);
    for (const cursor of stored) expect(isArrayCursor(cursor), JSON.stringify(cursor)).toBe(true);

    const before = sim.stats.searches.length;
    const resumed = await runIvsync(backfillArgs, env);
    expect(cliError(resumed.stderr)).toBeUndefined();
    expect(resumed.code).toBe(0);
    const after = sim.stats.searches.slice(before);
    for (const cursor of stored) {
      // The stored array went out again, and the pass it belongs to did not start over from its first page.
      const carried = after.find((s) => same(s.cursor, cursor));
      expect(carried, `resumed with ${JSON.stringify(cursor)}`).toBeDefined();
      expect(
        after.filter((s) => s.route === carried!.route && same(s.range, carried!.range) && s.cursor === null),
      ).toEqual([]);
    }
    await expectEqualsTruth(url, sim, '1.4');
  });

  it('a first sync over API 2 with array cursors pages the whole history', async () => {
    const sim = await simulator({ cursorStyle: 'array' });
    const { url } = target();
    const result = await runIvsync(
      ['sync', '--since', String(HISTORY_START)],
      envFor(sim, url, '2', 2000, PAGED_CRAWL),
    );
    expect(cliError(result.stderr)).toBeUndefined();
    expect(result.code).toBe(0);
    await expectEqualsTruth(url, sim, '2');
    expect(sim.stats.searches.some((s) => isArrayCursor(s.cursor))).toBe(true);
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
    expect(cliError(final.stderr)).toBeUndefined();
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
    expect(cliError(result.stderr)).toBeUndefined();
    expect(result.code).toBe(0);
    await expectEqualsTruth(url, sim, '2');
    for (const resource of RESOURCES) {
      const counts = await readTarget(url, `SELECT count(*) AS n, count(DISTINCT service_id) AS d FROM ${resource}`);
      expect(Number(counts[0]!.n)).toBe(truthFacts(sim, resource, '2').length);
      expect(Number(counts[0]!.d)).toBe(Number(counts[0]!.n));
    }
    const rows = await readTarget(
      url,
      `SELECT service_id, api_version, result_id, result_final FROM authentications WHERE service_id IN (?, ?, ?)`,
      changed,
    );
    const byId = new Map(rows.map((r) => [String(r.service_id), r]));
    for (const id of changed) expect(byId.get(id)?.api_version).toBe('2');
    expect(Boolean(byId.get(changed[0]!)?.result_final)).toBe(true);
    expect(byId.get(changed[1]!)?.result_id).toBe('unidentified');
    expect(Boolean(byId.get(changed[2]!)?.result_final)).toBe(false);
  });

  it('keeps malformed items in rejected_items and stores everything else', async () => {
    const sim = await simulator({ sessions: 80 });
    sim.world.injectBadItem('authentications', 'missing_service_id', { epoch: HISTORY_START + 86_400 * 10 });
    const wrong = sim.world.injectBadItem('authentications', 'final_not_boolean', {
      epoch: HISTORY_START + 86_400 * 40,
    });
    const { url } = target();
    const result = await runIvsync(backfillArgs, envFor(sim, url, '1.4'));
    expect(result.code).toBe(0);
    const rejected = await readTarget(
      url,
      'SELECT resource, service_id, reason, raw FROM rejected_items ORDER BY reason',
    );
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
