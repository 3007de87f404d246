import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { spawnIvsync, type Child } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_START } from '../helpers/truth.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';

announcePostgres('two-daemon Postgres tests');
const up = postgresUp;

const tempDir = useTempDir();
const ACCOUNTS = ['a1', 'a2', 'a3', 'a4'];
// Long enough that one account's sync fits in a tick on a loaded two-core machine.
const PERIOD = 3;
let sim: RunningSimulator | undefined;
const children: Child[] = [];
const schema = `ivs_daemon_${randomBytes(5).toString('hex')}`;
let db: pg.Client | undefined;

beforeAll(async () => {
  if (!up) return;
  db = new pg.Client({ connectionString: POSTGRES_URL });
  await db.connect();
});
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  sim = undefined;
});
afterAll(async () => {
  if (!db) return;
  await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await db.end();
});

/**
 * A simulator with one owner per account, and the environment of a config naming all four, writing to `targetSchema`.
 */
async function fourAccounts(seed: number, targetSchema: string): Promise<Record<string, string>> {
  const running = await startSimulator({
    sessions: 120,
    seed,
    rate: 200,
    burst: 200,
    tokens: Object.fromEntries(ACCOUNTS.map((a) => [`token-${a}`, `owner-${a}`])),
  });
  sim = running;
  const url = new URL(POSTGRES_URL!);
  url.searchParams.set('schema', targetSchema);
  return {
    IVS_BASE_URL: running.url,
    IVS_DB: url.toString(),
    IVS_RATE: '200',
    IVS_CONFIG: writeConfig(tempDir(), {
      accounts: ACCOUNTS.map((name) => ({ name, tokenEnv: `TOKEN_${name.toUpperCase()}` })),
    }),
    ...Object.fromEntries(ACCOUNTS.map((a) => [`TOKEN_${a.toUpperCase()}`, `token-${a}`])),
  };
}

describe.skipIf(!up)('two daemons sharing one Postgres target', () => {
  it('spread four accounts between them and sync each exactly once per tick', async () => {
    const env = await fourAccounts(41, schema);
    const args = [
      'daemon',
      '--schedule',
      `*/${PERIOD} * * * * *`,
      '--since',
      String(HISTORY_START),
      '--lease-ttl',
      '10',
    ];
    // The first sync of the history first (it takes longer than a tick), and
    // the schema with it, so the daemons start on incremental runs.
    expect((await spawnIvsync(['sync', '--since', String(HISTORY_START)], env).exited).code).toBe(0);
    const one = spawnIvsync(args, env);
    const two = spawnIvsync(args, env);
    children.push(one, two);

    // pg reads timestamptz as a Date (milliseconds: enough for ticks of seconds).
    type Run = { id: string; account: string; started_at: Date; finished_at: Date | null; status: string };
    const runs = async () =>
      (
        await db!.query<Run>(
          `SELECT id, account, started_at, finished_at, status FROM "${schema}".sync_runs WHERE account IS NOT ` +
            `NULL ORDER BY started_at`,
        )
      ).rows;
    await until(
      async () => ((await runs()).length >= ACCOUNTS.length * 5 ? true : undefined),
      90_000,
      'five ticks of runs',
    );
    one.kill('SIGTERM');
    two.kill('SIGTERM');
    const [endOne, endTwo] = await Promise.all([one.exited, two.exited]);
    expect(endOne.code).toBe(0);
    expect(endTwo.code).toBe(0);

    const all = await runs();
    expect(all.filter((r) => r.status === 'failed')).toEqual([]);
    // Tick of a run: the schedule fires on even seconds; runs start within it.
    const byTick = new Map<number, string[]>();
    for (const r of all) {
      const tick = Math.floor(r.started_at.getTime() / 1000 / PERIOD);
      byTick.set(tick, [...(byTick.get(tick) ?? []), r.account]);
    }
    for (const [tick, accounts] of byTick)
      expect(
        accounts.length,
        `tick ${tick}: ` +
          `${JSON.stringify(all.filter((r) => Math.floor(r.started_at.getTime() / 1000 / PERIOD) === tick))}`,
      ).toBe(new Set(accounts).size);
    // Ticks between the first and the last (both may be cut by start and stop) have every account once,
    // unless it could not run by design: its own previous run was still going (its lease is held), or
    // every daemon was still in its previous tick (a daemon skips a tick whole while its last one runs).
    const ticks = [...byTick.keys()].sort((a, b) => a - b).slice(1, -1);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    const idsOf = (stderr: string) => new Set([...stderr.matchAll(/"run":"([0-9a-f]{8})"/g)].map((m) => m[1]));
    const daemonRuns = [endOne, endTwo].map((end) => {
      const ids = idsOf(end.stderr);
      return all.filter((r) => ids.has(r.id));
    });
    // A tick ends a moment after its last run is recorded.
    const goingAt = (r: Run, at: number) =>
      r.started_at.getTime() < at && (r.finished_at === null || r.finished_at.getTime() > at - 100);
    for (const tick of ticks) {
      const at = tick * PERIOD * 1000;
      if (daemonRuns.every((own) => own.some((r) => goingAt(r, at)))) continue;
      const missing = ACCOUNTS.filter((a) => !byTick.get(tick)!.includes(a));
      const near = all.filter(
        (r) => missing.includes(r.account) && Math.abs(r.started_at.getTime() - at) < 3 * PERIOD * 1000,
      );
      expect(
        missing.filter((a) => !all.some((r) => r.account === a && goingAt(r, at))),
        `tick ${tick} (at ${new Date(at).toISOString()}): ${JSON.stringify(near)}`,
      ).toEqual([]);
    }
    // Skips are the exception: most ticks have all four.
    expect(ticks.filter((t) => byTick.get(t)!.length === ACCOUNTS.length).length).toBeGreaterThanOrEqual(
      Math.ceil(ticks.length / 2),
    );

    // Both daemons synced, and every run was one of theirs (its id is in its daemon's log lines).
    expect(daemonRuns[0]!.length).toBeGreaterThan(0);
    expect(daemonRuns[1]!.length).toBeGreaterThan(0);
    expect(daemonRuns[0]!.length + daemonRuns[1]!.length).toBe(all.length);

    // Every account's rows are its own owner's sessions, each once.
    const counts = await db!.query<{ account: string; n: string }>(
      `SELECT account, COUNT(*) AS n FROM "${schema}".authentications GROUP BY account ORDER BY account`,
    );
    expect(counts.rows.map((r) => [r.account, Number(r.n)])).toEqual(
      ACCOUNTS.map((a) => [a, sim!.world.truth(`token-${a}`, 'authentications').length]),
    );
    // No lease of an account is left behind by a clean stop.
    const leases = await db!.query(
      `SELECT name FROM "${schema}".sync_leases WHERE name LIKE 'account:%' OR name LIKE 'daemon:%'`,
    );
    expect(leases.rows).toEqual([]);
  }, 150_000);

  it('when one daemon dies, the other takes all its accounts over', async () => {
    const env = await fourAccounts(42, `${schema}_b`);
    try {
      expect((await spawnIvsync(['sync', '--since', String(HISTORY_START)], env).exited).code).toBe(0);
      const args = ['daemon', '--schedule', `*/${PERIOD} * * * * *`, '--lease-ttl', '4'];
      const doomed = spawnIvsync(args, env);
      const survivor = spawnIvsync(args, env);
      children.push(doomed, survivor);
      const runsSince = async (iso: string) =>
        (
          await db!.query<{ account: string; started_at: Date }>(
            `SELECT account, started_at FROM "${schema}_b".sync_runs WHERE account IS NOT NULL AND started_at > $1`,
            [iso],
          )
        ).rows;
      await until(
        async () => ((await runsSince(new Date(0).toISOString())).length >= ACCOUNTS.length * 2 ? true : undefined),
        30_000,
        'two ticks',
      );
      doomed.kill('SIGKILL');
      await doomed.exited;
      const killedAt = new Date().toISOString().replace('Z', '000Z');
      // Within a few ticks the survivor syncs every account on every tick.
      const after = await until(
        async () => {
          const rows = await runsSince(killedAt);
          const ticks = new Map<number, Set<string>>();
          for (const r of rows) {
            const tick = Math.floor(r.started_at.getTime() / 1000 / PERIOD);
            ticks.set(tick, (ticks.get(tick) ?? new Set()).add(r.account));
          }
          const full = [...ticks.values()].filter((accounts) => accounts.size === ACCOUNTS.length).length;
          return full >= 2 ? rows : undefined;
        },
        40_000,
        'the survivor taking every account',
      );
      expect(new Set(after.map((r) => r.account))).toEqual(new Set(ACCOUNTS));
      survivor.kill('SIGTERM');
      expect((await survivor.exited).code).toBe(0);
    } finally {
      await db!.query(`DROP SCHEMA IF EXISTS "${schema}_b" CASCADE`);
    }
  });
});
