import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/logger.js';
import { Progress } from '../../src/cli/progress.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { BackfillPlanSummary } from '../../src/crawl/engine/crawl-deps.js';
import { runBackfill } from '../../src/crawl/runs/run-backfill.js';
import { openRun } from '../../src/embed.js';
import { runIvsync } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
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
  return {
    account: 'default',
    resource: 'authentications',
    windows,
    todo,
    resumed: 0,
    seconds: secondsLeft,
    totalSeconds: windows * 30 * DAY,
  };
}

describe('backfill progress', () => {
  it.each([
    ['a fresh backfill starts at 0', [plan(12, 12, 360 * DAY)], { phase: 'running', total: 360 * DAY, covered: 0 }],
    [
      'a resumed backfill starts at what earlier runs paged',
      [plan(12, 3, 90 * DAY)],
      { phase: 'running', total: 360 * DAY, covered: 270 * DAY },
    ],
    [
      'over resources, the done parts add up',
      [plan(12, 6, 180 * DAY), { ...plan(12, 12, 360 * DAY), resource: 'fingerprints' }],
      { phase: 'running', total: 720 * DAY, covered: 180 * DAY },
    ],
    ['an empty plan draws no bar', [plan(12, 0, 0)], { phase: 'nothing', total: 0, covered: 0 }],
  ] as const)('%s', (_name, plans, want) => {
    const p = progress();
    p.onEvent({ type: 'backfill-plan', plans });
    p.stop();
    expect(p.state).toEqual(want);
  });

  it('a backfill over a range partly paged before starts at that part: the plan counts the windows done', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const db = join(dir, 't.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '2000',
    };
    const first = await runIvsync(
      [
        'backfill',
        '--from',
        String(HISTORY_START),
        '--to',
        String(HISTORY_START + 150 * DAY),
        '--resources',
        'authentications',
      ],
      env,
    );
    expect(first.code).toBe(0);
    const [paged] = query<{ seconds: number }>(
      db,
      "SELECT SUM(window_end - window_start) AS seconds FROM sync_windows WHERE status = 'done'",
    );
    expect(paged!.seconds).toBeGreaterThan(0);

    const plans: BackfillPlanSummary[] = [];
    const run = await openRun(loadConfig({ flags: {}, env, clock: Date.now }), {
      onEvent: (e) => e.type === 'backfill-plan' && plans.push(...e.plans),
    });
    try {
      await runBackfill(run, {
        accounts: ['default'],
        from: HISTORY_START,
        to: HISTORY_END,
        resources: ['authentications'],
        wait: false,
      });
    } finally {
      await run.close();
    }
    const p = progress();
    p.onEvent({ type: 'backfill-plan', plans });
    p.stop();
    const [all] = query<{ seconds: number }>(db, 'SELECT SUM(window_end - window_start) AS seconds FROM sync_windows');
    expect(p.state).toEqual({ phase: 'running', total: all!.seconds, covered: paged!.seconds });
  });

  it('says "nothing to do" when every window of the interval is paged already', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${join(dir, 't.sqlite')}`,
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '2000',
    };
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
