import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliError, errorMessage, runIvsync, spawnChild, spawnIvsync, type Child } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START, truthFacts, type SessionResource } from '../helpers/truth.js';
import { storedFacts } from '../targets/truth-rows.js';

/*
 * DuckDB locks its file for as long as a process has it open, so a second
 * ivsync cannot even read the lease that would tell it to wait. Without
 * --wait it says so in one line; with --wait it waits for the file, then runs.
 */
const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Another process (an analyst's DuckDB session, say) that holds the file until SIGTERM. */
const HOLDER = `
import { DuckDBInstance } from '@duckdb/node-api';
const instance = await DuckDBInstance.create(process.argv[1]);
const connection = await instance.connect();
const keepAlive = setInterval(() => undefined, 60_000);
process.on('SIGTERM', () => { connection.closeSync(); instance.closeSync(); clearInterval(keepAlive); });
process.stdout.write('held\\n');
`;

const RESOURCES: readonly SessionResource[] = ['authentications', 'fingerprints'];

/** Resolves once `ready()` holds (polled; the condition, not a duration, ends the wait). */
async function until(ready: () => boolean, what: string, child: Child): Promise<void> {
  let ended = false;
  void child.exited.then(() => (ended = true));
  while (!ready()) {
    if (ended) throw new Error(`the process ended before ${what}: ${child.stderr()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('a DuckDB file another process has open', () => {
  const tempDir = useTempDir();
  const simulator = useSimulators({ sessions: 60, rate: 2000, burst: 2000, seed: 5 });

  it('fails at once in one line without --wait, and with --wait is waited for and then backfilled to the truth', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const path = join(dir, 'target.duckdb');
    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: `duckdb:${path}`, IVS_CONFIG: writeConfig(dir), IVS_RATE: '2000' };
    const args = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];
    const holder = spawnChild(process.execPath, ['--input-type=module', '-e', HOLDER, path], { PATH: process.env.PATH }, REPO);
    try {
      await until(() => holder.stdout().includes('held'), 'it held the file', holder);

      const refused = await runIvsync(args, { ...env, IVS_LOG_LEVEL: 'silent' });
      expect(refused.code).toBe(1);
      expect(errorMessage(refused.stderr)).toMatch(new RegExp(`^target duckdb:${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is open in another process \\(.*PID ${holder.pid}\\)`));
      expect(sim.stats.requests).toBe(0);

      const waiter = spawnIvsync([...args, '--wait'], { ...env, IVS_LOG_LEVEL: 'info' });
      await until(() => waiter.stderr().includes('waiting for another process to close the DuckDB file'), 'it waited', waiter);
      expect(sim.stats.requests).toBe(0);
      holder.kill('SIGTERM');
      expect((await holder.exited).code).toBe(0);
      const done = await waiter.exited;
      expect(cliError(done.stderr)).toBeUndefined();
      expect(done.code).toBe(0);
      for (const resource of RESOURCES) expect(await storedFacts(`duckdb:${path}`, resource)).toEqual(truthFacts(sim, resource));
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
