import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { spawnIvsync, type Child } from '../helpers/run-cli.js';
import { servedUrl } from '../helpers/served-url.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { HISTORY_START } from '../helpers/truth.js';
import { until } from '../helpers/wait.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  sim = undefined;
});

/** Bytes of the file's WAL: 0 once DuckDB folded it in. */
const walBytes = (file: string) => (existsSync(`${file}.wal`) ? statSync(`${file}.wal`).size : 0);

describe("the daemon's DuckDB target between ticks", () => {
  it('has its WAL folded into the file after a tick (the file opened anew), below any checkpoint', async () => {
    sim = await startSimulator({ sessions: 30, seed: 43, rate: 1000, burst: 1000 });
    const file = join(tempDir(), 'ivsync.duckdb');
    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: `duckdb:${file}`, IVS_RATE: '1000' };
    const child = spawnIvsync(
      ['daemon', '--schedule', '*/2 * * * * *', '--since', String(HISTORY_START), '--port', '0'],
      env,
    );
    children.push(child);
    const base = await servedUrl(child);
    const succeeded = async () => {
      const body = (await (await fetch(`${base}/healthz`)).json()) as { detail?: string };
      return body.detail?.startsWith('last run succeeded') === true;
    };
    await until(succeeded, { what: 'a run that succeeded', child });
    // A sync of 30 sessions writes a few hundred kB of WAL, far below DuckDB's own threshold (8 MB): only the
    // daemon's rest after the tick folds it in.
    await until(() => walBytes(file) === 0, { what: 'the WAL folded in after a tick', child });
    expect(existsSync(file)).toBe(true);
  });
});
