import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { cliError, errorMessage, runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { execute, query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { expectTargetEqualsTruth, HISTORY_END, HISTORY_START } from '../helpers/truth.js';

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 200, rate: 2000, burst: 2000, seed: 41, nonFinalShare: 0.05 });

interface Finding {
  account: string;
  resource: string;
  serviceId: string;
  kind: string;
  column: string | null;
  storedValue: string | null;
  serviceValue: string | null;
  windowStart: number;
}

/** A backfilled and synced SQLite target (old windows sealed) of a small world. */
async function synced(crawl: Record<string, number> = {}) {
  const sim = await simulator();
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  const config = writeConfig(dir, {
    crawl: { windowSeconds: 30 * 86_400, concurrency: 8, overlapSeconds: 86_400, ...crawl },
  });
  const env = {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: `sqlite:${db}`,
    IVS_CONFIG: config,
    IVS_RATE: '2000',
  };
  expect((await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env)).code).toBe(
    0,
  );
  expect((await runIvsync(['sync'], env)).code).toBe(0);
  return { sim, db, env };
}

/** A final session of `resource` whose window is sealed, the `nth` oldest. */
function sealedSession(
  db: string,
  resource: string,
  nth = 0,
): { service_id: string; flag: string | null; result_id: string } {
  const rows = query<{ service_id: string; flag: string | null; result_id: string }>(
    db,
    `SELECT s.service_id, s.flag, s.result_id FROM ${resource} s JOIN sync_windows w
       ON w.resource = ? AND w.status = 'sealed' AND s.created_epoch >= w.window_start AND s.created_epoch < ` +
      `w.window_end
     WHERE s.result_final = 1 ORDER BY s.created_epoch`,
    resource,
  );
  expect(rows.length).toBeGreaterThan(nth + 3);
  return rows[nth * 3]!;
}

async function verifyJson(env: Record<string, string>, args: readonly string[] = []) {
  const result = await runIvsync(['verify', '--json', ...args], env);
  expect(cliError(result.stderr)).toBeUndefined();
  return {
    code: result.code,
    report: JSON.parse(result.stdout) as {
      status: string;
      requests: number;
      findings: Finding[];
      windowsChecked: number;
      candidates: number;
      partial: unknown[];
      repaired: number | null;
      seed: string;
    },
  };
}

function sessionTables(db: string): unknown[] {
  return ['authentications', 'fingerprints'].map((t) =>
    query(db, `SELECT service_id, result_id, flag, missing_since, last_synced_at FROM ${t} ORDER BY service_id`),
  );
}

const key = (f: Finding) => `${f.kind} ${f.resource} ${f.serviceId} ${f.column ?? '-'}`;

describe('ivsync verify', () => {
  it(
    'finds rows deleted or edited in the target and changes at the service in sealed windows; --repair makes the ' +
      'copy exact',
    async () => {
      const { sim, db, env } = await synced();
      const deleted = sealedSession(db, 'authentications', 0);
      const edited = sealedSession(db, 'authentications', 1);
      const flagged = sealedSession(db, 'authentications', 2);
      execute(db, 'DELETE FROM authentications WHERE service_id = ?', deleted.service_id);
      execute(db, "UPDATE authentications SET result_id = 'tampered' WHERE service_id = ?", edited.service_id);
      execute(db, "UPDATE authentications SET flag = 'local_flag' WHERE service_id = ?", flagged.service_id);
      // At the service, long after the windows were sealed: a flag set on an old final session, and a session gone.
      const remote = sealedSession(db, 'fingerprints', 0);
      sim.world.setFlag(remote.service_id, 'flagged_later');
      const gone = sealedSession(db, 'fingerprints', 1);
      sim.world.removeAccess(gone.service_id);

      const before = sessionTables(db);
      const first = await verifyJson(env, ['--budget', '200', '--seed', '7']);
      expect(first.code).toBe(4);
      expect(first.report.status).toBe('succeeded');
      expect(first.report.windowsChecked).toBe(first.report.candidates);
      expect(first.report.requests).toBeLessThanOrEqual(200);
      expect(first.report.findings.map(key).sort()).toEqual(
        [
          `missing_locally authentications ${deleted.service_id} -`,
          `changed authentications ${edited.service_id} result_id`,
          `changed authentications ${flagged.service_id} flag`,
          `changed fingerprints ${remote.service_id} flag`,
          `not_returned fingerprints ${gone.service_id} -`,
        ].sort(),
      );
      const changedFlag = first.report.findings.find((f) => f.serviceId === remote.service_id)!;
      expect([changedFlag.storedValue, changedFlag.serviceValue]).toEqual([remote.flag, 'flagged_later']);
      // Without --repair only its own rows are written.
      expect(sessionTables(db)).toEqual(before);
      expect(query(db, 'SELECT status, findings, windows_checked, budget, seed, repaired FROM verify_runs')).toEqual([
        {
          status: 'succeeded',
          findings: 5,
          windows_checked: first.report.windowsChecked,
          budget: 200,
          seed: '7',
          repaired: null,
        },
      ]);
      expect(
        query(db, 'SELECT kind, service_id, column_name, repaired FROM verify_findings WHERE kind = ?', 'changed'),
      ).toHaveLength(3);

      const repair = await verifyJson(env, ['--budget', '200', '--seed', '7', '--repair']);
      expect(repair.code).toBe(4);
      expect(repair.report.findings.map(key).sort()).toEqual(first.report.findings.map(key).sort());
      expect(repair.report.repaired).toBe(5);
      expectTargetEqualsTruth(db, sim);
      expect(
        query(
          db,
          'SELECT missing_since IS NOT NULL AS missing FROM fingerprints WHERE service_id = ?',
          gone.service_id,
        ),
      ).toEqual([{ missing: 1 }]);
      // The drifted windows are pending again (sealed ones unsealed), so the next crawl of them pages them.
      const reopened = query<{ status: string }>(
        db,
        'SELECT DISTINCT w.status FROM sync_windows w JOIN verify_findings f ON f.resource = w.resource AND ' +
          'f.window_start = w.window_start AND f.run_id = (SELECT id FROM verify_runs WHERE repaired IS NOT NULL)',
      );
      expect(reopened).toEqual([{ status: 'pending' }]);

      const again = await verifyJson(env, ['--budget', '200']);
      expect(again.code).toBe(0);
      expect(again.report.findings).toEqual([]);
      // A backfill pages the reopened windows again and finds nothing new to fix.
      expect(
        (await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env)).code,
      ).toBe(0);
      expectTargetEqualsTruth(db, sim);
    },
  );

  it('a budget smaller than one window: checks the pages that fit and says so', async () => {
    // One window of the whole year (never split), narrowed to with --from/--to.
    const { db, env } = await synced({ windowSeconds: 400 * 86_400, splitAfterPages: 1000 });
    const newest = query<{ service_id: string; created_epoch: number }>(
      db,
      'SELECT service_id, created_epoch FROM authentications ORDER BY created_epoch DESC LIMIT 1',
    )[0]!;
    execute(db, 'DELETE FROM authentications WHERE service_id = ?', newest.service_id);
    const at = String(Math.floor(newest.created_epoch));
    const result = await runIvsync(
      ['verify', '--budget', '2', '--resources', 'authentications', '--from', at, '--to', at],
      env,
    );
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(
      /partial: the budget ended inside default\/authentications window .* after 2 of ~\d+ pages/,
    );
    expect(result.stdout).toContain(newest.service_id);
    const [run] = query<{ status: string; requests: number; windows_checked: number; error: string }>(
      db,
      'SELECT status, requests, windows_checked, error FROM verify_runs',
    );
    expect(run).toMatchObject({ status: 'partial', requests: 2, windows_checked: 0 });
    expect(run!.error).toMatch(/not looked for/);
  });

  it('refuses a target that does not exist, without creating it', async () => {
    const sim = await simulator({ sessions: 5 });
    const dir = tempDir();
    const db = join(dir, 'nothing.sqlite');
    const result = await runIvsync(['verify'], {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir),
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(errorMessage(result.stderr)).toMatch(/^target sqlite:.*nothing\.sqlite does not exist/);
    expect(existsSync(db)).toBe(false);
  });

  it('usage mistakes exit 2 and name their source', async () => {
    const dir = tempDir();
    const env = {
      IVS_DB: `sqlite:${join(dir, 'x.sqlite')}`,
      IVS_CONFIG: writeConfig(dir),
      IVS_BASE_URL: 'http://127.0.0.1:9',
      IVS_API_TOKEN: 'test-token',
    };
    const cases: Array<[readonly string[], Record<string, string>, RegExp]> = [
      [['verify', '--budget', '0'], {}, /^--budget: must be a whole number of requests, at least 1/],
      [['verify', '--budget', '2.5'], {}, /^--budget: /],
      [['verify'], { IVS_VERIFY_BUDGET: 'lots' }, /^IVS_VERIFY_BUDGET: /],
      [['verify', '--from', 'yesterday'], {}, /^--from: /],
      [['verify', '--from', '2026-03-01', '--to', '2026-01-01'], {}, /^--to: 2026-01-01 is before --from/],
      [['daemon', '--verify-every', 'daily'], {}, /^--verify-every: expected a period such as 6h/],
    ];
    for (const [args, extra, message] of cases) {
      const result = await runIvsync(args, { ...env, ...extra });
      expect(result.code, args.join(' ')).toBe(2);
      expect(errorMessage(result.stderr)).toMatch(message);
    }
    expect(existsSync(join(dir, 'x.sqlite'))).toBe(false);
  });

  it('an older target gets the verify tables from the migration', async () => {
    const dir = tempDir();
    const db = join(dir, 'old.sqlite');
    const env = { IVS_DB: `sqlite:${db}`, IVS_CONFIG: writeConfig(dir) };
    expect((await runIvsync(['migrate'], env)).code).toBe(0);
    // As a target migrated before the verify tables existed.
    execute(db, 'DROP TABLE verify_findings');
    execute(db, 'DROP TABLE verify_runs');
    execute(db, 'DELETE FROM knex_migrations WHERE name = ?', '20261123150000_verify');
    expect((await runIvsync(['migrate'], env)).code).toBe(0);
    const tables = query<{ name: string }>(
      db,
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'verify_%' ORDER BY name",
    );
    expect(tables.map((t) => t.name)).toEqual(['verify_findings', 'verify_runs']);
    expect(query(db, 'SELECT count(*) AS n FROM knex_migrations WHERE name = ?', '20261123150000_verify')).toEqual([
      { n: 1 },
    ]);
  });

  it('never runs beside another holder of the account lease', async () => {
    const sim = await simulator({ sessions: 5 });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir),
    };
    expect((await runIvsync(['migrate'], env)).code).toBe(0);
    const now = new Date().toISOString();
    execute(
      db,
      'INSERT INTO sync_leases (name, holder, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?)',
      'account:default',
      'elsewhere:1:abc',
      now,
      now,
    );
    const result = await runIvsync(['verify'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/elsewhere:1:abc/);
    expect(query(db, 'SELECT count(*) AS n FROM verify_runs')).toEqual([{ n: 0 }]);
  });
});

export type { RunningSimulator };
