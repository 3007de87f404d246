import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { openSink } from '../../src/store/open-sink.js';
import { announcePostgres, POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { cliError, runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START, truthFacts } from '../helpers/truth.js';
import { freshTarget, type FreshTarget } from '../targets/each-target.js';

/*
 * Two accounts configured with two tokens of one service account see the
 * same sessions. Their backfills run at once on one PostgreSQL schema, each
 * through its own connections, and page the same windows in the same order:
 * every session is merged by both, often at the same moment. Each must still
 * be stored once with the newest values, with one chain of versions in
 * session_history, and counted as written by one run only.
 */
announcePostgres('shared session tests');

const tempDir = useTempDir();
const simulator = useSimulators({
  sessions: 2000,
  seed: 41,
  rate: 400,
  burst: 400,
  latencyMs: 2,
  tokens: { 'tok-a': 'alice', 'tok-b': 'alice' },
});
const RESOURCES = ['authentications', 'fingerprints'] as const;

let target: FreshTarget | undefined;
afterEach(async () => {
  await target?.dispose();
  target = undefined;
});

async function select<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Runs `args` for each account at once, each in a CLI of its own, and expects both to succeed. */
async function bothAtOnce(env: Record<string, string>, args: readonly string[]): Promise<void> {
  const results = await Promise.all(['a1', 'a2'].map((account) => runIvsync([...args, '--account', account], env)));
  for (const r of results) {
    expect(cliError(r.stderr), r.stderr).toBeUndefined();
    expect(r.code, r.stderr).toBe(0);
  }
}

async function expectTruth(schema: string, sim: RunningSimulator): Promise<number> {
  let stored = 0;
  for (const resource of RESOURCES) {
    const rows = await select<{ service_id: string; result_id: string; result_final: boolean; flag: string | null }>(
      `SELECT service_id, result_id, result_final, flag FROM "${schema}".${resource} ORDER BY service_id COLLATE "C"`,
    );
    const truth = truthFacts(sim, resource, '1.4', 'tok-a').map(({ service_id, result_id, result_final, flag }) => ({
      service_id,
      result_id,
      result_final,
      flag,
    }));
    expect(truth.length).toBeGreaterThan(0);
    expect(rows).toEqual(truth);
    stored += rows.length;
  }
  // No session set aside: a lost race is never a refused row.
  expect(await select(`SELECT count(*)::int AS n FROM "${schema}".rejected_items`)).toEqual([{ n: 0 }]);
  return stored;
}

/** Versions per session in session_history: each chained to the next, one current; returns their counts. */
async function versionCounts(schema: string): Promise<Map<string, number>> {
  const rows = await select<{ service_id: string; valid_from: Date; valid_to: Date | null }>(
    `SELECT service_id, valid_from, valid_to FROM "${schema}".session_history ` +
      'ORDER BY resource, service_id, valid_from',
  );
  const counts = new Map<string, number>();
  let previous: (typeof rows)[number] | undefined;
  for (const row of rows) {
    if (previous?.service_id === row.service_id) expect(previous.valid_to).toEqual(row.valid_from);
    else if (previous !== undefined) expect(previous.valid_to).toBeNull();
    counts.set(row.service_id, (counts.get(row.service_id) ?? 0) + 1);
    previous = row;
  }
  expect(previous?.valid_to).toBeNull();
  return counts;
}

const writtenSince = async (schema: string, since: string): Promise<number> => {
  const [row] = await select<{ n: number }>(
    `SELECT coalesce(sum(items_written), 0)::int AS n FROM "${schema}".sync_runs WHERE started_at >= $1 AND ` +
      `status = 'succeeded'`,
    [since],
  );
  return row!.n;
};

describe.skipIf(!postgresUp)('two accounts that see the same sessions, crawling one PostgreSQL schema at once', () => {
  it('store each session once, newest values, one chain of versions, counted once', async () => {
    const sim = await simulator();
    target = await freshTarget('postgres');
    const schema = new URL(target.url).searchParams.get('schema')!;
    const accounts = [
      { name: 'a1', tokenEnv: 'TOKEN_A' },
      { name: 'a2', tokenEnv: 'TOKEN_B' },
    ];
    const env = {
      IVS_BASE_URL: sim.url,
      TOKEN_A: 'tok-a',
      TOKEN_B: 'tok-b',
      IVS_DB: target.url,
      IVS_CONFIG: writeConfig(tempDir(), { accounts }),
      IVS_RATE: '400',
    };
    const backfill = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];

    // Migrated first: two processes that create one schema at once are another matter.
    await (await openSink(target.url)).close();
    const first = new Date().toISOString();
    await bothAtOnce(env, backfill);
    const sessions = await expectTruth(schema, sim);
    // Each session inserted by one run; the other found it unchanged.
    expect(await writtenSince(schema, first)).toBe(sessions);
    const before = await versionCounts(schema);
    expect(before.size).toBe(sessions);
    expect([...before.values()].every((n) => n === 1)).toBe(true);

    // A third of the sessions change; both accounts page everything again, at once.
    const changed = sim.world.serviceIds('alice', 'authentications').filter((_, i) => i % 3 === 0);
    for (const id of changed) sim.world.setFlag(id, 'review');
    const reset = await runIvsync(['reset'], env);
    expect(reset.code, reset.stderr).toBe(0);
    const second = new Date().toISOString();
    await bothAtOnce(env, backfill);
    expect(await expectTruth(schema, sim)).toBe(sessions);
    expect(await writtenSince(schema, second)).toBe(changed.length);
    const after = await versionCounts(schema);
    const twice = new Set([...after].filter(([, n]) => n === 2).map(([id]) => id));
    expect(twice).toEqual(new Set(changed));
    expect([...after.values()].every((n) => n <= 2)).toBe(true);
  }, 240_000);
});
