import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdDuckdbFile } from '../helpers/duckdb-holder.js';
import { cliError, errorMessage, runIvsync, spawnIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START, truthFacts, type SessionResource } from '../helpers/truth.js';
import { until } from '../helpers/wait.js';
import { storedFacts } from '../targets/truth-rows.js';

/*
 * DuckDB locks its file for as long as a process has it open, so a second
 * ivsync cannot even read the lease that would tell it to wait. Without
 * --wait it says so in one line; with --wait it waits for the file, then runs.
 */
const RESOURCES: readonly SessionResource[] = ['authentications', 'fingerprints'];

describe('a DuckDB file another process has open', () => {
  const tempDir = useTempDir();
  const simulator = useSimulators({ sessions: 60, rate: 2000, burst: 2000, seed: 5 });

  it(
    'fails at once in one line without --wait, and with ' + '--wait is waited for and then backfilled to the truth',
    async () => {
      const sim = await simulator();
      const dir = tempDir();
      const path = join(dir, 'target.duckdb');
      const env = {
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: `duckdb:${path}`,
        IVS_CONFIG: writeConfig(dir),
        IVS_RATE: '2000',
      };
      const args = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];
      const holder = await holdDuckdbFile(path);
      try {
        const refused = await runIvsync(args, { ...env, IVS_LOG_LEVEL: 'silent' });
        expect(refused.code).toBe(1);
        expect(errorMessage(refused.stderr)).toMatch(
          new RegExp(
            `^target duckdb:${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is open in another process \\(.*PID ` +
              `${holder.pid}\\)`,
          ),
        );
        expect(sim.stats.requests).toBe(0);

        const waiter = spawnIvsync([...args, '--wait'], { ...env, IVS_LOG_LEVEL: 'info' });
        await until(() => waiter.stderr().includes('waiting for another process to close the DuckDB file'), {
          what: 'it waited',
          child: waiter,
        });
        expect(sim.stats.requests).toBe(0);
        expect(await holder.release()).toBe(0);
        const done = await waiter.exited;
        expect(cliError(done.stderr)).toBeUndefined();
        expect(done.code).toBe(0);
        for (const resource of RESOURCES)
          expect(await storedFacts(`duckdb:${path}`, resource)).toEqual(truthFacts(sim, resource));
      } finally {
        holder.kill();
      }
    },
  );
});
