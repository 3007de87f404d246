import { expect, it } from 'vitest';
import { cliError, runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { eachTarget } from './each-target.js';
import { readTarget } from './read-target.js';
import { storedFacts, truthFacts } from './truth-rows.js';

/*
 * verify against SQLite, DuckDB and PostgreSQL: the drift it finds and the
 * repair it makes must not depend on the target.
 */

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 100, rate: 2000, burst: 2000, seed: 43, nonFinalShare: 0.05 });

eachTarget((_dialect, target) => {
  it('finds changes at the service inside sealed windows, repairs them, and then finds none', async () => {
    const sim = await simulator();
    const { url } = target();
    const config = writeConfig(tempDir(), {
      crawl: { windowSeconds: 61 * 86_400, concurrency: 6, overlapSeconds: 86_400, resources: ['authentications'] },
    });
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: url,
      IVS_CONFIG: config,
      IVS_RATE: '2000',
    };
    expect(
      (await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env)).code,
    ).toBe(0);
    expect((await runIvsync(['sync'], env)).code).toBe(0);
    const sealed = await readTarget(
      url,
      `SELECT s.service_id, s.created_epoch FROM authentications s JOIN sync_windows w
         ON w.resource = 'authentications' AND w.status = 'sealed' AND s.created_epoch >= w.window_start AND ` +
        `s.created_epoch < w.window_end
       WHERE s.result_final ORDER BY s.created_epoch`,
    );
    expect(sealed.length).toBeGreaterThan(4);
    const flagged = String(sealed[0]!.service_id);
    const gone = String(sealed[2]!.service_id);
    sim.world.setFlag(flagged, 'flagged_later');
    sim.world.removeAccess(gone);
    // Uploaded long after its window was sealed, with its original time.
    const late = sim.world.addSession({ epoch: Number(sealed[4]!.created_epoch) + 1 });

    const found = await runIvsync(['verify', '--json'], env);
    expect(cliError(found.stderr)).toBeUndefined();
    expect(found.code).toBe(4);
    const findings = (
      JSON.parse(found.stdout) as { findings: Array<{ kind: string; serviceId: string; column: string | null }> }
    ).findings;
    expect(findings.map((f) => `${f.kind} ${f.serviceId} ${f.column ?? '-'}`).sort()).toEqual(
      [`changed ${flagged} flag`, `not_returned ${gone} -`, `missing_locally ${late.serviceId} -`].sort(),
    );
    const runs = await readTarget(url, 'SELECT status, findings FROM verify_runs');
    expect(runs.map((r) => ({ status: r.status, findings: Number(r.findings) }))).toEqual([
      { status: 'succeeded', findings: 3 },
    ]);

    expect((await runIvsync(['verify', '--repair'], env)).code).toBe(4);
    expect(await storedFacts(url, 'authentications')).toEqual(truthFacts(sim, 'authentications', '1.4'));
    expect((await runIvsync(['verify'], env)).code).toBe(0);
  });
});
