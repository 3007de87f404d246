import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { spawnIvsync } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { useSimulators } from '../helpers/simulators.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const simulator = useSimulators({});

const TOKEN = 'tok_S3cr3tValue_4f9a2b7c';

function everyFileText(dir: string): string {
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f)).toString('latin1'))
    .join('\n');
}

describe('the API token', () => {
  it('appears nowhere: stdout, stderr, logs or the database, also with --verbose', async () => {
    sim = await simulator({ sessions: 60, rate: 2000, burst: 2000, tokens: { [TOKEN]: 'alice' }, faults: '500=0.05' });
    const dir = tempDir();
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: TOKEN,
      IVS_DB: `sqlite:${join(dir, 'ivsync.sqlite')}`,
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '2000',
    };
    const runs = [
      await spawnIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END), '--verbose'], env)
        .exited,
      await spawnIvsync(['sync', '--verbose'], env).exited,
      await spawnIvsync(['status', '--json', '--verbose'], env).exited,
      await spawnIvsync(['health', '--verbose'], env).exited,
    ];
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    for (const r of runs) {
      expect(r.stdout + r.stderr).not.toContain(TOKEN);
    }
    expect(runs[0]!.stderr.length).toBeGreaterThan(0); // --verbose did log
    expect(everyFileText(dir)).not.toContain(TOKEN);
  });

  it('a wrong token gives one clear line, without the token, and no stack', async () => {
    sim = await simulator({ sessions: 10 });
    const dir = tempDir();
    const wrong = 'tok_wrong_ZZZ_987654321';
    for (const verbose of [[], ['--verbose']]) {
      const r = await spawnIvsync(
        ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END), ...verbose],
        {
          IVS_BASE_URL: sim.url,
          IVS_API_TOKEN: wrong,
          IVS_DB: `sqlite:${join(dir, 'ivsync.sqlite')}`,
          IVS_CONFIG: writeConfig(dir),
        },
      ).exited;
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('the service rejected the token (401)');
      expect(r.stdout + r.stderr).not.toContain(wrong);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(everyFileText(dir)).not.toContain(wrong);
  });
});
