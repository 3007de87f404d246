import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { startScriptServer } from '../api/script-server.js';
import { cliError, runIvsync } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { expectTargetEqualsTruth, HISTORY_END, HISTORY_START } from '../helpers/truth.js';

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 300, rate: 2000, burst: 2000, seed: 7 });

function setup(sim: RunningSimulator, config: Record<string, unknown> = {}) {
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: `sqlite:${db}`,
    IVS_CONFIG: writeConfig(dir, config),
    IVS_RATE: '2000',
  };
  return { dir, db, env };
}

const backfillArgs = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];

describe('backfill against the simulator', () => {
  it('stores exactly what the token may see: ids, results, finals, flags, parents', async () => {
    const sim = await simulator({ otherOwnerSessions: 60 });
    const { db, env } = setup(sim);
    const result = await runIvsync(backfillArgs, env);
    expect(cliError(result.stderr)).toBeUndefined();
    expect(result.code).toBe(0);
    expectTargetEqualsTruth(db, sim);
    // Other owners' sessions are never present.
    const others = new Set(sim.world.serviceIds(sim.world.otherOwner, 'authentications'));
    const stored = query<{ service_id: string }>(db, 'SELECT service_id FROM authentications');
    expect(stored.filter((r) => others.has(r.service_id))).toEqual([]);
    // Every window completed, and a second run fetches nothing new.
    expect(query(db, "SELECT count(*) AS n FROM sync_windows WHERE status <> 'done'")).toEqual([{ n: 0 }]);
    const before = sim.stats.requests;
    expect((await runIvsync(backfillArgs, env)).code).toBe(0);
    expect(sim.stats.requests).toBe(before);
  });

  it('records the fingerprint partial case: parent not accessible, with its warning', async () => {
    const sim = await simulator();
    const { db, env } = setup(sim);
    expect((await runIvsync([...backfillArgs, '--resources', 'fingerprints'], env)).code).toBe(0);
    const partial = query<{ service_id: string }>(
      db,
      "SELECT service_id FROM fingerprints WHERE mode = 'compare' AND parent_accessible = 0",
    );
    expect(partial.length).toBeGreaterThan(0);
    const warned = query(
      db,
      'SELECT DISTINCT w.service_id FROM session_warnings w JOIN fingerprints f USING (service_id) WHERE ' +
        "w.code = 'fingerprint_parent_not_authorized'",
    );
    expect(warned).toHaveLength(partial.length);
  });

  it.each([
    ['inclusive', 'inclusive'],
    ['inclusive', 'exclusive'],
    ['exclusive', 'inclusive'],
    ['exclusive', 'exclusive'],
  ] as const)('keeps items exactly on window edges when range start is %s and end is %s', async (start, end) => {
    const sim = await simulator({ sessions: 40, rangeSemantics: { start, end } });
    // Sessions exactly on the window grid (30-day windows in the test config) and one second off it.
    const edge = Math.floor(HISTORY_START / (30 * 86_400) + 3) * 30 * 86_400;
    for (const epoch of [edge, edge - 1, edge + 1, edge + 30 * 86_400]) sim.world.addSession({ epoch });
    const { db, env } = setup(sim);
    expect((await runIvsync([...backfillArgs, '--resources', 'authentications'], env)).code).toBe(0);
    expectTargetEqualsTruth(db, sim, ['authentications']);
  });

  it('survives 429 storms, 500s, resets and truncated bodies', async () => {
    const sim = await simulator({ faults: '500=0.08,reset=0.05,truncate=0.05,429=0.08', retryAfterSeconds: 0 });
    const { db, env } = setup(sim);
    const result = await runIvsync(backfillArgs, env);
    expect(cliError(result.stderr)).toBeUndefined();
    expect(result.code).toBe(0);
    expect(Object.values(sim.stats.faultsInjected).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
    expectTargetEqualsTruth(db, sim);
  });

  it('keeps a bad item aside in rejected_items and completes the rest', async () => {
    const sim = await simulator({ sessions: 100 });
    sim.world.injectBadItem('authentications', 'missing_service_id', { epoch: HISTORY_START + 86_400 * 10 });
    const wrongType = sim.world.injectBadItem('authentications', 'epoch_string', {
      epoch: HISTORY_START + 86_400 * 20,
    });
    const { db, env } = setup(sim);
    expect((await runIvsync([...backfillArgs, '--resources', 'authentications'], env)).code).toBe(0);
    const rejected = query<{ reason: string; raw: string }>(
      db,
      'SELECT reason, raw FROM rejected_items ORDER BY reason',
    );
    expect(rejected).toHaveLength(2);
    expect(rejected.map((r) => r.reason).join(' ')).toMatch(/service_id/);
    expect(rejected.map((r) => r.reason).join(' ')).toMatch(/timestamp\.epoch/);
    expect(rejected.some((r) => r.raw.includes(wrongType.serviceId))).toBe(true);
    // truth() leaves out what the service returns malformed: everything else is stored.
    expectTargetEqualsTruth(db, sim, ['authentications']);
  });
});

describe('raw', () => {
  it('is each item exactly as the service sent it, spacing and number spelling included', async () => {
    const epoch = 1_700_000_100;
    const itemText =
      `{ "service_id": "raw-1", "activity": {"name": ` + `"authentication"}, "timestamp": {"epoch": ${epoch}.0} }`;
    const server = await startScriptServer((req, res) => {
      const items = req.path.endsWith('/authentications') ? `[\n  ${itemText}\n]` : '[]';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"items": ${items}, "item_count": ${items === '[]' ? 0 : 1}, "next_cursor": null}`);
    });
    try {
      const dir = tempDir();
      const db = join(dir, 'ivsync.sqlite');
      const env = {
        IVS_BASE_URL: server.baseUrl,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: `sqlite:${db}`,
        IVS_CONFIG: writeConfig(dir, {}),
      };
      const result = await runIvsync(['backfill', '--from', String(epoch - 60), '--to', String(epoch + 60)], env);
      expect(result.code).toBe(0);
      expect(query(db, 'SELECT service_id, created_epoch, raw FROM authentications')).toEqual([
        { service_id: 'raw-1', created_epoch: epoch, raw: itemText },
      ]);
    } finally {
      await server.close();
    }
  });
});
