import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/logger.js';
import { Progress } from '../../src/cli/progress.js';
import type { BackfillPlanSummary } from '../../src/crawl/crawl-deps.js';
import { runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 60, rate: 2000, burst: 2000, seed: 5 });
const DAY = 86_400;

function progress(): Progress {
  const logger = createLogger({ level: 'silent', destination: new PassThrough(), bindings: { run: 'r' } });
  return new Progress({ tty: false, stream: new PassThrough(), logger, clock: () => 0 });
}

function plan(windows: number, todo: number, secondsLeft: number): BackfillPlanSummary {
  return { account: 'default', resource: 'authentications', windows, todo, resumed: 0, seconds: secondsLeft, totalSeconds: windows * 30 * DAY };
}

describe('backfill progress', () => {
  it.each([
    ['a fresh backfill starts at 0', [plan(12, 12, 360 * DAY)], { phase: 'running', total: 360 * DAY, covered: 0 }],
    ['a resumed backfill starts at what earlier runs paged', [plan(12, 3, 90 * DAY)], { phase: 'running', total: 360 * DAY, covered: 270 * DAY }],
    ['over resources, the done parts add up', [plan(12, 6, 180 * DAY), { ...plan(12, 12, 360 * DAY), resource: 'fingerprints' }], { phase: 'running', total: 720 * DAY, covered: 180 * DAY }],
    ['an empty plan draws no bar', [plan(12, 0, 0)], { phase: 'nothing', total: 0, covered: 0 }],
  ] as const)('%s', (_name, plans, want) => {
    const p = progress();
    p.onEvent({ type: 'backfill-plan', plans });
    p.stop();
    expect(p.state).toEqual(want);
  });

  it('says "nothing to do" when every window of the interval is paged already', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token', IVS_DB: `sqlite:${join(dir, 't.sqlite')}`, IVS_CONFIG: writeConfig(dir), IVS_RATE: '2000' };
    const args = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];
    const first = await runIvsync(args, env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^backfill complete: /);
    const again = await runIvsync(args, env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^backfill: nothing to do: /);
    expect(again.stderr).not.toMatch(/ETA|NaN|Infinity/);
    const json = await runIvsync([...args, '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ windowsPaged: 0, requests: 0 });
  });
});
