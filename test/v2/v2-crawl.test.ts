import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { cliError, runIvsync } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START, searchPagesServed } from '../helpers/truth.js';
import { storedFacts, truthFacts } from '../targets/truth-rows.js';
import { useSimulators } from '../helpers/simulators.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const simulator = useSimulators({});

async function backfilledV2(options: SimulatorOptions = {}, prepare?: (s: RunningSimulator) => void) {
  sim = await simulator({ sessions: 300, rate: 2000, burst: 2000, seed: 31, nonFinalShare: 0.15, ...options });
  prepare?.(sim);
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: `sqlite:${db}`,
    IVS_CONFIG: writeConfig(dir),
    IVS_RATE: '2000',
    IVS_API_VERSION: '2',
  };
  const result = await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env);
  expect(cliError(result.stderr)).toBeUndefined();
  expect(result.code).toBe(0);
  return { sim, db, env };
}

async function expectEqualsTruthV2(db: string, s: RunningSimulator): Promise<void> {
  for (const resource of ['authentications', 'fingerprints'] as const) {
    const truth = truthFacts(s, resource, '2');
    expect(truth.length).toBeGreaterThan(0);
    expect(await storedFacts(`sqlite:${db}`, resource)).toEqual(truth);
  }
}

/** `n` authentications created at least 31 days apart and at least 2 days before the end of the history. */
function spreadOut(s: RunningSimulator, n: number): string[] {
  const picked: string[] = [];
  let last = Infinity;
  for (const id of s.world.serviceIds(undefined, 'authentications')) {
    const created = s.world.get(id)!.createdMicros / 1e6;
    if (created < HISTORY_END - 2 * 86_400 && last - created > 31 * 86_400) {
      picked.push(id);
      last = created;
    }
    if (picked.length === n) break;
  }
  return picked;
}

describe('the crawl over API version 2', () => {
  it('backfills exactly the v2 truth, 25 sessions a page (v2 would default to 10)', async () => {
    const { sim, db } = await backfilledV2();
    await expectEqualsTruthV2(db, sim);
    expect(query(db, 'SELECT DISTINCT api_version FROM sync_windows')).toEqual([{ api_version: '2' }]);
    // Well over 10 sessions a page on average: only a limit above v2's default of 10 carries that.
    const windows = query<{ pages: number; items: number }>(db, 'SELECT pages, items FROM sync_windows');
    const pages = windows.reduce((n, w) => n + w.pages, 0);
    expect(windows.reduce((n, w) => n + w.items, 0) / pages).toBeGreaterThan(12);
    // Each page served is counted once, with the window it was asked for.
    expect(searchPagesServed(sim)).toBe(pages);
  });

  it('syncs v2 changes, and takes a 404 for "not there any more"', async () => {
    // Non-final sessions more than a window apart, each alone in its window and
    // older than the sync's overlap: the refresh asks for each by id.
    let picked: string[] = [];
    const { sim, db, env } = await backfilledV2({ nonFinalShare: 0 }, (s) => {
      picked = spreadOut(s, 3);
      for (const id of picked) s.world.setResult(id, 'unidentified', false);
    });
    expect(picked).toHaveLength(3);
    const fresh = sim.world.addSession({});
    sim.world.finalize(picked[0]!);
    const gone = picked[1]!;
    sim.world.removeAccess(gone);

    // A day and ten minutes on: every old non-final session the backfill saw is due by then.
    const result = await runIvsync(['sync'], env, undefined, () => Date.now() + 86_400_000 + 600_000);
    expect(cliError(result.stderr)).toBeUndefined();
    expect(result.code).toBe(0);
    await expectEqualsTruthV2(db, sim);
    expect(query(db, 'SELECT count(*) AS n FROM authentications WHERE service_id = ?', fresh.serviceId)).toEqual([
      { n: 1 },
    ]);
    expect(query(db, 'SELECT result_final FROM authentications WHERE service_id = ?', picked[0]!)).toEqual([
      { result_final: 1 },
    ]);
    expect(
      query(db, 'SELECT missing_since IS NOT NULL AS missing FROM authentications WHERE service_id = ?', gone),
    ).toEqual([{ missing: 1 }]);
    // The refresh asked for the non-final sessions by id, and the service's 404 was an answer, not an error.
    expect(sim.stats.byRoute['GET /v2/authentications/{service_id}']?.['404']).toBeGreaterThanOrEqual(1);
  });
});

describe('the catalog refresh of a v2 sync', () => {
  it('mirrors the authentication config and the supported catalog', async () => {
    const { db, env } = await backfilledV2({ catalogUnavailableShare: 0 });
    const result = await runIvsync(['sync', '--json'], env);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as {
      catalogs: Array<{ account: string; stored: Record<string, number>; failures: string[] }>;
    };
    expect(out.catalogs).toHaveLength(1);
    expect(out.catalogs[0]!.failures).toEqual([]);
    const count = (table: string): number => query<{ n: number }>(db, `SELECT count(*) AS n FROM ${table}`)[0]!.n;
    for (const table of ['catalog_brands', 'catalog_materials', 'catalog_detail_fields', 'catalog_categories']) {
      expect(count(table)).toBeGreaterThan(0);
      expect(out.catalogs[0]!.stored[table]).toBe(count(table));
    }
    expect(query(db, 'SELECT DISTINCT account FROM catalog_brands')).toEqual([{ account: 'default' }]);
    // Brands of the sessions are brands of the catalog.
    expect(
      query(
        db,
        'SELECT DISTINCT brand_id FROM authentications WHERE brand_id NOT IN (SELECT brand_id FROM catalog_brands)',
      ),
    ).toEqual([]);
    expect(query(db, 'SELECT customer_product_group FROM catalog_categories ORDER BY 1')).toEqual([
      { customer_product_group: 'handbags' },
      { customer_product_group: 'jewelry' },
    ]);
  });

  it('reports a catalog that stays unavailable (503) and still completes the sync', async () => {
    const { sim, db, env } = await backfilledV2({ catalogUnavailableShare: 1 });
    const fresh = sim.world.addSession({});
    const result = await runIvsync(['sync'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/catalog default: \d+ brands, \d+ materials, \d+ detail fields;/);
    expect(result.stdout).toMatch(/WARNING not refreshed: supported catalog: .*503/);
    expect(result.stderr).toMatch(/"level":"warn".*catalog not refreshed/);
    // The sessions were synced all the same, and the config part was stored.
    expect(query(db, 'SELECT count(*) AS n FROM authentications WHERE service_id = ?', fresh.serviceId)).toEqual([
      { n: 1 },
    ]);
    expect(query<{ n: number }>(db, 'SELECT count(*) AS n FROM catalog_brands')[0]!.n).toBeGreaterThan(0);
    expect(query(db, 'SELECT count(*) AS n FROM catalog_categories')).toEqual([{ n: 0 }]);
    expect(sim.stats.byRoute['GET /v2/supported-catalog']?.['503']).toBeGreaterThan(1);
    expect(query(db, "SELECT status FROM sync_runs WHERE command = 'sync'")).toEqual([{ status: 'succeeded' }]);
  });

  it('is not attempted for a v1.4 account', async () => {
    sim = await simulator({ sessions: 30, rate: 2000, burst: 2000 });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '2000',
    };
    const result = await runIvsync(['sync', '--since', String(HISTORY_END - 7 * 86_400), '--json'], env);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { catalogs: unknown[] }).catalogs).toEqual([]);
    expect(Object.keys(sim.stats.byRoute).filter((r) => r.startsWith('GET /v2/'))).toEqual([]);
  });
});
