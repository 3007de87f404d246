import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';
import { execute, query } from '../helpers/sqlite-target.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { expectTargetEqualsTruth, HISTORY_END, HISTORY_START } from '../helpers/truth.js';

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 200, rate: 2000, burst: 2000, seed: 17 });
const backfillArgs = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];

async function backfilled(sim: RunningSimulator) {
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: `sqlite:${db}`,
    IVS_CONFIG: writeConfig(dir),
    IVS_RATE: '2000',
  };
  expect((await runIvsync(backfillArgs, env)).code).toBe(0);
  return { db, env };
}

interface WindowRow {
  resource: string;
  window_start: number;
  window_end: number;
  status: string;
  attempts: number;
}

const windows = (db: string): WindowRow[] =>
  query<WindowRow>(
    db,
    'SELECT resource, window_start, window_end, status, attempts FROM sync_windows ORDER BY resource, window_start',
  );

describe('ivsync reset', () => {
  it('reopens the windows of a range (sealed ones too), and the next backfill pages exactly those again', async () => {
    const sim = await simulator();
    const { db, env } = await backfilled(sim);
    // A range inside the history, not on the window grid: the windows it touches are reopened whole.
    const grid = windows(db).filter((w) => w.resource === 'authentications');
    const inside = grid.slice(3, 6);
    const from = inside[0]!.window_start + 1000;
    const to = inside[2]!.window_end - 1000;
    execute(
      db,
      "UPDATE sync_windows SET status = 'sealed' WHERE resource = 'authentications' AND window_start = ?",
      inside[1]!.window_start,
    );
    // Sessions uploaded late into those windows: only a new pass over them finds them.
    for (const w of inside) sim.world.addSession({ epoch: w.window_start + 3600 });

    const reset = await runIvsync(
      ['reset', '--resource', 'authentications', '--from', String(from), '--to', String(to), '--json'],
      env,
    );
    expect(reset.stderr).toBe('');
    expect(reset.code).toBe(0);
    expect(JSON.parse(reset.stdout)).toEqual({
      reopened: [
        {
          account: 'default',
          resource: 'authentications',
          windows: 3,
          sealed: 1,
          from: new Date(inside[0]!.window_start * 1000).toISOString(),
          to: new Date(inside[2]!.window_end * 1000).toISOString(),
        },
      ],
    });
    const reopened = new Set(inside.map((w) => w.window_start));
    for (const w of windows(db)) {
      expect([w.resource, w.window_start, w.status]).toEqual([
        w.resource,
        w.window_start,
        w.resource === 'authentications' && reopened.has(w.window_start) ? 'pending' : 'done',
      ]);
    }

    const again = await runIvsync(backfillArgs, env);
    expect(again.code).toBe(0);
    // Each reopened window had one more pass, and no other window any.
    for (const w of windows(db)) {
      expect([w.resource, w.window_start, w.status, w.attempts]).toEqual([
        w.resource,
        w.window_start,
        'done',
        w.resource === 'authentications' && reopened.has(w.window_start) ? 2 : 1,
      ]);
    }
    expectTargetEqualsTruth(db, sim);
  });

  it('says what it reopened in text, per resource', async () => {
    const sim = await simulator({ sessions: 40 });
    const { db, env } = await backfilled(sim);
    const count = (resource: string) => windows(db).filter((w) => w.resource === resource).length;
    const r = await runIvsync(['reset'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^reset default/authentications: reopened ${count('authentications')} windows \\(0 sealed\\) from \\S+ ` +
          `to \\S+\\n`,
      ),
    );
    expect(r.stdout).toContain(`reset default/fingerprints: reopened ${count('fingerprints')} windows`);
    expect(query(db, "SELECT count(*) AS n FROM sync_windows WHERE status <> 'pending'")).toEqual([{ n: 0 }]);
  });

  it('does not reopen what a running sync holds: the account lease is taken', async () => {
    const sim = await simulator({ sessions: 20 });
    const { db, env } = await backfilled(sim);
    const now = new Date().toISOString();
    execute(
      db,
      'INSERT INTO sync_leases (name, holder, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?)',
      'account:default',
      'elsewhere:4242:abcd1234',
      now,
      now,
    );
    const r = await runIvsync(['reset'], env);
    expect(r.code).toBe(1);
    expect(errorMessage(r.stderr)).toMatch(/^account:default is held by elsewhere:4242:abcd1234/);
    expect(query(db, "SELECT count(*) AS n FROM sync_windows WHERE status = 'pending'")).toEqual([{ n: 0 }]);
  });

  it('usage mistakes exit 2 and change nothing', async () => {
    const sim = await simulator({ sessions: 20 });
    const { db, env } = await backfilled(sim);
    const cases: Array<[readonly string[], RegExp]> = [
      [['--from', '2025-03-01', '--to', '2025-02-01'], /^--to: 2025-02-01 is before --from 2025-03-01$/],
      [['--resources', 'photos'], /^--resources: unknown resource "photos"/],
      [['--account', 'nope'], /^--account: no account 'nope'/],
    ];
    for (const [args, message] of cases) {
      const r = await runIvsync(['reset', ...args], env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(errorMessage(r.stderr)).toMatch(message);
    }
    expect(query(db, "SELECT count(*) AS n FROM sync_windows WHERE status = 'pending'")).toEqual([{ n: 0 }]);
  });

  it('refuses a target that does not exist instead of creating it', async () => {
    const dir = tempDir();
    const path = join(dir, 'nothing.sqlite');
    const r = await runIvsync(['reset'], { IVS_DB: `sqlite:${path}`, IVS_CONFIG: writeConfig(dir) });
    expect(r.code).toBe(1);
    expect(errorMessage(r.stderr)).toMatch(/does not exist/);
    expect(existsSync(path)).toBe(false);
  });
});
