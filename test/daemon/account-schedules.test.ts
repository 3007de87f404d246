import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runIvsync, spawnIvsync, type Child } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
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

interface Run {
  account: string;
  started_at: string;
  finished_at: string | null;
  status: string;
}

/** Two accounts of one simulator, each with the schedule given (undefined: the daemon's). */
async function twoAccounts(seed: number, schedules: Record<'a1' | 'a2', string | undefined>) {
  sim = await startSimulator({
    sessions: 60,
    seed,
    rate: 200,
    burst: 200,
    tokens: { 'token-a1': 'owner-a1', 'token-a2': 'owner-a2' },
  });
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  const accounts = (['a1', 'a2'] as const).map((name) => ({
    name,
    tokenEnv: `TOKEN_${name.toUpperCase()}`,
    ...(schedules[name] ? { schedule: schedules[name] } : {}),
  }));
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_DB: `sqlite:${db}`,
    IVS_RATE: '200',
    IVS_CONFIG: writeConfig(dir, { accounts }),
    TOKEN_A1: 'token-a1',
    TOKEN_A2: 'token-a2',
  };
  return { db, env };
}

function runs(db: string): Run[] {
  if (!existsSync(db)) return [];
  try {
    return query<Run>(
      db,
      'SELECT account, started_at, finished_at, status FROM sync_runs ' +
        "WHERE command = 'sync' AND account IS NOT NULL ORDER BY started_at",
    );
  } catch {
    return []; // still migrating
  }
}

function daemon(args: readonly string[], env: Record<string, string>): Child {
  const child = spawnIvsync(['daemon', '--since', String(HISTORY_START), ...args], env);
  children.push(child);
  return child;
}

describe('schedules per account', () => {
  it("an account's own schedule overrides the daemon's: one every second, the other at New Year", async () => {
    const { db, env } = await twoAccounts(81, { a1: undefined, a2: '0 0 1 1 *' });
    const child = daemon(['--schedule', '* * * * * *'], env);
    await until(
      () => (runs(db).filter((r) => r.account === 'a1' && r.status === 'succeeded').length >= 3 ? true : undefined),
      60_000,
      'three syncs of a1',
    );
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
    expect(runs(db).filter((r) => r.account === 'a2')).toEqual([]);
  }, 90_000);

  it('two daemons with per-account schedules never run an account twice at once', async () => {
    const { db, env } = await twoAccounts(82, { a1: '* * * * * *', a2: '*/2 * * * * *' });
    // The history first, so that every tick is a short incremental run.
    for (const account of ['a1', 'a2'])
      expect(
        (await spawnIvsync(['sync', '--account', account, '--since', String(HISTORY_START)], env).exited).code,
      ).toBe(0);
    const one = daemon(['--lease-ttl', '10'], env);
    const two = daemon(['--lease-ttl', '10'], env);
    await until(
      () => {
        const all = runs(db);
        return all.filter((r) => r.account === 'a1').length >= 8 && all.filter((r) => r.account === 'a2').length >= 5
          ? true
          : undefined;
      },
      90_000,
      'runs of both accounts',
    );
    one.kill('SIGTERM');
    two.kill('SIGTERM');
    expect((await one.exited).code).toBe(0);
    expect((await two.exited).code).toBe(0);

    const all = runs(db);
    // The runs in flight at SIGTERM end interrupted; none failed.
    expect(all.filter((r) => r.status !== 'succeeded' && r.status !== 'interrupted')).toEqual([]);
    for (const account of ['a1', 'a2']) {
      const mine = all.filter((r) => r.account === account);
      // Each run ends before the next of its account starts, whichever daemon ran it.
      for (let i = 1; i < mine.length; i++)
        expect(mine[i]!.started_at >= mine[i - 1]!.finished_at!, `${account} run ${i}`).toBe(true);
    }
    // The account on the slower schedule ran less often than the other.
    expect(all.filter((r) => r.account === 'a2').length).toBeLessThan(all.filter((r) => r.account === 'a1').length);
  }, 150_000);

  it("an account's refresh budget counts in its own schedule's gap", async () => {
    // Hourly for a2, the daemon's 5 minutes for a1: twelve times the share of the token between two runs.
    const { env } = await twoAccounts(83, { a1: undefined, a2: '0 * * * *' });
    const sync = await runIvsync(['sync', '--json', '--since', String(HISTORY_START)], { ...env, IVS_RATE: '10' });
    expect(sync.code).toBe(0);
    const outcomes = (JSON.parse(sync.stdout) as { outcomes: Array<{ account: string; refreshBudget: number }> })
      .outcomes;
    const budget = (account: string) =>
      outcomes.filter((o) => o.account === account).reduce((sum, o) => sum + o.refreshBudget, 0);
    // 10% of 10 requests/s over 300 s, less what the account's passes spent, split over its two resources; over
    // 3,600 s for a2.
    expect(budget('a1')).toBeLessThanOrEqual(300);
    expect(budget('a2')).toBeGreaterThanOrEqual(3_000);
    expect(budget('a2')).toBeLessThanOrEqual(3_600);
  });
});
