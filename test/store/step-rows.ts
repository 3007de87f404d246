import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { TABLES as FIRST_TABLES } from '../../migrations/20251122000000_initial.js';
import type { Dialect } from '../../src/schema/dialect.js';
import type { Migration } from '../../src/store/migration/migration-step.js';

/** The SQLite target the first release (8adc796) wrote: a backfill of the simulator, seed 19, 300 sessions. */
export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/targets-8adc796/', import.meta.url));

/** The simulator the fixtures were backfilled from: the same world, so a sync finds what they hold. */
export const FIXTURE_WORLD = { seed: 19, sessions: 300 } as const;

type Rows = Record<string, Record<string, unknown>[]>;

/** Every row of the first release's tables in the SQLite fixture, as the first release wrote them. */
function fixtureRows(): Rows {
  // Read from a copy: SQLite leaves its -shm file next to a WAL database even when it only reads.
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-fixture-'));
  copyFileSync(`${FIXTURE_DIR}ivsync.sqlite`, join(dir, 'ivsync.sqlite'));
  const db = new Database(join(dir, 'ivsync.sqlite'), { readonly: true });
  try {
    const all = (table: string) => db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
    return Object.fromEntries(FIRST_TABLES.map((t) => [t.name, all(t.name)]));
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rows of the tables no backfill writes, times and JSON as every release wrote them. */
const OTHER_ROWS: Rows = {
  sync_leases: [
    {
      name: 'account:gone',
      holder: 'gone:1:run',
      acquired_at: '2025-06-02T00:00:09.000007Z',
      heartbeat_at: '2025-06-02T00:00:12.000008Z',
    },
  ],
  webhook_deliveries: [
    {
      id: 'd-1',
      webhook_uuid: 'w',
      channel: 'main',
      received_at: '2025-06-02T00:00:13.000009Z',
      signature_ok: true,
      items: 1,
      applied: 1,
      body: '{"items":[], "z":1,"a":2}',
    },
  ],
  rejected_items: [
    {
      id: 'r-1',
      resource: 'authentications',
      service_id: null,
      reason: 'bad',
      raw: '{"bad":true}',
      seen_at: '2025-06-02T00:00:14.000010Z',
      account: 'default',
    },
  ],
  webhooks: [
    {
      webhook_uuid: 'w',
      account: 'default',
      channel: 'main',
      endpoint_url: 'https://example.test/hook',
      filters: '{"a":1}',
      created_at: '2025-06-01T00:00:00.000001Z',
      created_epoch: 1748736000.000001,
      organization_name: 'o',
      username: 'u',
      active: true,
      last_synced_at: '2025-06-02T00:00:00.000002Z',
      raw: '{"webhook_uuid":"w"}',
    },
  ],
};

/** Rows of the tables a later migration created, for a target that ran it. */
const LATER_ROWS: Record<string, Rows> = {
  '20261123150000_verify': {
    verify_runs: [
      {
        id: 'v-1',
        started_at: '2026-11-23T18:00:00.000001Z',
        finished_at: '2026-11-23T18:00:05.000002Z',
        account: 'default',
        budget: 10,
        seed: 's',
        requests: 3,
        windows_checked: 2,
        sessions_checked: 20,
        findings: 1,
        repaired: null,
        status: 'succeeded',
        error: null,
        holder: 'h:1:v-1',
      },
    ],
    verify_findings: [
      {
        run_id: 'v-1',
        seq: 1,
        account: 'default',
        resource: 'authentications',
        service_id: 'gone',
        kind: 'not_returned',
        column_name: null,
        stored_value: null,
        service_value: null,
        window_start: 1756339200,
        repaired: false,
      },
    ],
  },
  '20261123200000_session_refresh': {
    session_refresh: [
      {
        resource: 'authentications',
        service_id: 'x',
        account: 'default',
        tier: 'hot',
        checked_at: '2026-11-23T21:00:00.000003Z',
        interval_seconds: 60,
      },
    ],
  },
};

/** Whose columns are booleans: SQLite has none, every release wrote 0/1 there. */
const BOOLEANS = new Set([
  ...FIRST_TABLES.flatMap((t) => t.columns.filter((c) => c.type === 'boolean').map((c) => `${t.name}.${c.name}`)),
  'verify_findings.repaired',
  'session_history.result_final',
  'session_versions.result_final',
]);

/**
 * The rows a target holds after `applied` migrations: the first release's real
 * backfill (the fixture) and a row of every other table that exists by then,
 * each with the columns of that step (sync_runs.holder once run_holder ran;
 * a checkpoint cursor as JSON text once cursor-json ran).
 */
export function rowsAtStep(applied: readonly Migration[], dialect: Dialect): Rows {
  const ran = new Set(applied.map((m) => m.name));
  const rows: Rows = { ...fixtureRows(), ...OTHER_ROWS };
  if (ran.has('20261123140000_run_holder')) {
    rows.sync_runs = rows.sync_runs!.map((r) => ({ ...r, holder: `host:1:${String(r.id)}` }));
  }
  // A window of another account part-way through its pass: a sync of the configured account leaves it alone.
  const cursor = ran.has('20261123120000_cursor-json') ? '["c",7]' : 'c-7';
  rows.sync_windows = [
    ...rows.sync_windows!,
    {
      account: 'legacy',
      resource: 'authentications',
      api_version: '1.4',
      window_start: 0,
      window_end: 86_400,
      status: 'running',
      cursor,
      pages: 1,
      items: 10,
      attempts: 1,
      error: null,
      updated_at: '2025-06-02T00:00:11.000003Z',
      pass_from: 0,
      pass_to: 86_400,
      pass_started_at: '2025-06-02T00:00:09.000004Z',
      synced_to: null,
    },
  ];
  for (const [migration, tables] of Object.entries(LATER_ROWS)) if (ran.has(migration)) Object.assign(rows, tables);
  if (ran.has('20261126500000_history_implicit_first')) {
    // session_history is a view over session_versions by then, which holds only the versions no row tells.
    rows.session_versions = historyRows(rows, 'changed only');
  } else if (ran.has('20261126200000_session_history')) rows.session_history = historyRows(rows);
  const typed = (table: string, row: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k, BOOLEANS.has(`${table}.${k}`) && v !== null ? toBoolean(v, dialect) : v]),
    );
  return Object.fromEntries(Object.entries(rows).map(([table, list]) => [table, list.map((row) => typed(table, row))]));
}

/**
 * session_history as ivsync wrote it from history mode on: a version per
 * stored session from its created_at with its row's values, and for the first
 * session of each resource an earlier version it changed from (non-final,
 * closed an hour after its creation), so an upgrade meets both. From
 * history_implicit_first on, the versions a session's row tells are not
 * stored: `changed only` keeps the first session's two.
 */
function historyRows(rows: Rows, keep: 'all' | 'changed only' = 'all'): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const resource of ['authentications', 'fingerprints']) {
    (rows[resource] ?? []).forEach((s, i) => {
      const current = {
        service_id: s.service_id,
        resource,
        account: s.account,
        valid_from: s.created_at,
        valid_to: null,
        result_id: s.result_id,
        result_final: s.result_final,
        flag: s.flag,
        missing_since: s.missing_since,
        update_counter: s.update_counter,
        source: s.source,
        api_version: s.api_version,
      };
      if (i > 0) {
        if (keep === 'all') out.push(current);
        return;
      }
      const changedAt = new Date(Date.parse(String(s.created_at)) + 3_600_000).toISOString().replace('Z', '000Z');
      out.push({ ...current, valid_to: changedAt, result_id: 'pending', result_final: 0 });
      out.push({ ...current, valid_from: changedAt });
    });
  }
  return out;
}

function toBoolean(value: unknown, dialect: Dialect): boolean | number {
  const flag = value === true || value === 1;
  return dialect === 'sqlite' ? Number(flag) : flag;
}
