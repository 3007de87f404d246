import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_START } from '../helpers/truth.js';

/*
 * What info level shows off a terminal (the JSON lines of cron and
 * containers): what a run did, not the crawler's workings, and nothing the
 * command prints on stdout a second time.
 */

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 60, rate: 2000, burst: 2000, seed: 3 });

const records = (stderr: string): Array<{ level: string; msg: string }> =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: string; msg: string });

describe('info level', () => {
  it('a sync logs no refresh plan, and an export no line per relation; --verbose shows both', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '2000',
      IVS_DB: `sqlite:${join(dir, 'x.sqlite')}`,
    };
    const first = await runIvsync(['sync', '--since', String(HISTORY_START)], env);
    expect(first.code).toBe(0);
    // The second sync has non-final sessions to refresh.
    const second = await runIvsync(['sync'], env);
    expect(second.code).toBe(0);
    expect(records(first.stderr + second.stderr).filter((r) => r.msg === 'refresh')).toEqual([]);
    const verbose = await runIvsync(['sync', '--verbose'], env);
    expect(records(verbose.stderr).filter((r) => r.msg === 'refresh').length).toBeGreaterThan(0);

    const exported = await runIvsync(['export', '--to', `parquet:${join(dir, 'pq')}`], env);
    expect(exported.code).toBe(0);
    expect(records(exported.stderr).filter((r) => r.msg === 'exported')).toEqual([]);
    expect(exported.stdout).toMatch(/^authentications\s+table\s+\d+$/m);
  });
});
