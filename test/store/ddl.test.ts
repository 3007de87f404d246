import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TABLES as initialTables, TYPES as initialTypes } from '../../migrations/20251122000000_initial.js';
import * as typedTime from '../../migrations/20261123000000_typed_time.js';
import { MIGRATIONS } from '../../migrations/index.js';
import {
  duckdbCreateTable,
  duckdbDownStatements,
  duckdbUpStatements,
} from '../../src/store/drivers/duckdb/duckdb-ddl.js';
import { frozenTable } from '../../src/store/migration/frozen-table.js';
import { applyStepsWithKnex, revertStepsWithKnex } from '../../src/store/drivers/knex-ddl.js';
import { isWithoutRowid } from '../../src/store/drivers/sqlite/sqlite-rebuild.js';
import type { MigrationStep, StepTable } from '../../src/store/migration/migration-step.js';
import { VIEWS, viewSql } from '../../src/store/views.js';

const initial = MIGRATIONS[0]!;
const TYPED = typedTime.TYPES;
const frozen = (name: string): StepTable => initialTables.find((t) => t.name === name)!;

describe('DuckDB DDL from the frozen steps', () => {
  it('maps every column type through the step types and keeps the primary key', () => {
    expect(duckdbCreateTable(frozen('sync_leases'), TYPED, true)).toBe(
      'CREATE TABLE sync_leases (name VARCHAR NOT NULL, holder VARCHAR NOT NULL, acquired_at TIMESTAMPTZ NOT ' +
        'NULL, heartbeat_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (name))',
    );
    expect(duckdbCreateTable(frozen('sync_leases'), initialTypes, true)).toContain('acquired_at VARCHAR NOT NULL');
    const sql = duckdbCreateTable(frozen('webhooks'), TYPED, true);
    expect(sql).toContain('filters JSON,');
    expect(sql).toContain('created_epoch DOUBLE,');
    expect(sql).toContain('active BOOLEAN NOT NULL');
    expect(duckdbCreateTable(frozen('sync_windows'), TYPED, true)).toContain('window_start BIGINT NOT NULL');
  });

  it('the initial migration creates the tables and views of the first release', async () => {
    const none = {
      hasTable: () => Promise.resolve(false),
      hasColumn: () => Promise.resolve(false),
      columnType: () => Promise.resolve(null),
      hasPrimaryKey: () => Promise.resolve(false),
    };
    const statements = await duckdbUpStatements(initial.steps, none);
    expect(statements).toHaveLength(initialTables.length + 4);
    for (const t of initialTables) expect(statements).toContain(duckdbCreateTable(t, initialTypes, true));
    expect(
      statements.filter((s) => s.startsWith('CREATE TABLE')).map((s) => /^CREATE TABLE (\w+)/.exec(s)![1]),
    ).not.toContain('verify_runs');
    expect(duckdbDownStatements(initial.steps)[0]).toBe('DROP VIEW IF EXISTS v_sync_health');
  });

  it(
    'the typed-time migration retypes the text times of the first release around dropped views, and does nothing ' +
      'to typed columns',
    async () => {
      const typed = MIGRATIONS.find((m) => m.name === '20261123000000_typed_time')!;
      // A catalog whose times have the type `time` (its JSON columns are JSON, in DuckDB before and after).
      const catalog = (time: string) => ({
        hasTable: () => Promise.resolve(true),
        hasColumn: () => Promise.resolve(true),
        columnType: (t: string, c: string) =>
          Promise.resolve(frozen(t).columns.find((x) => x.name === c)?.type === 'json' ? 'JSON' : time),
        hasPrimaryKey: () => Promise.resolve(true),
      });
      const fromText = await duckdbUpStatements(typed.steps, catalog('VARCHAR'));
      const times = initialTables.flatMap((t) => t.columns.filter((c) => c.type === 'timestamp'));
      const views = ['v_latest_authentications', 'v_fingerprint_pairs', 'v_daily_results', 'v_sync_health'];
      expect(fromText.slice(0, 4)).toEqual(views.map((v) => `DROP VIEW IF EXISTS ${v}`));
      expect(fromText.slice(-4).map((s) => /^CREATE VIEW (\w+)/.exec(s)![1])).toEqual(views);
      const alters = fromText.slice(4, -4);
      expect(alters).toHaveLength(times.length);
      expect(alters).toContain(
        'ALTER TABLE sync_leases ALTER COLUMN heartbeat_at SET DATA TYPE TIMESTAMPTZ USING CAST(heartbeat_at AS ' +
          'TIMESTAMPTZ)',
      );
      // Only the tables of the first release: the ones created later are created typed.
      expect(alters.some((s) => s.includes('verify_runs') || s.includes('session_refresh'))).toBe(false);
      // DuckDB's catalog spells the type out.
      expect(await duckdbUpStatements(typed.steps, catalog('TIMESTAMP WITH TIME ZONE'))).toEqual([]);
      expect(duckdbDownStatements(typed.steps)).toContain(
        "ALTER TABLE sync_leases ALTER COLUMN heartbeat_at SET DATA TYPE VARCHAR USING strftime(timezone('UTC', " +
          "heartbeat_at), '%Y-%m-%dT%H:%M:%S.%fZ')",
      );
    },
  );

  it('leaves the primary key out of a table created keyless, never its NOT NULL', () => {
    expect(duckdbCreateTable(frozen('session_text_fields'), TYPED, false)).toBe(
      'CREATE TABLE session_text_fields (service_id VARCHAR NOT NULL, key VARCHAR NOT NULL, value VARCHAR)',
    );
  });

  it(
    'the keyless migration rebuilds only a table that ' + 'still has its key, and reverting puts the key back',
    async () => {
      const steps: MigrationStep[] = [{ kind: 'duckdbKeyless', tables: [frozen('session_text_fields')], types: TYPED }];
      const catalog = (keyed: boolean) => ({
        hasTable: () => Promise.resolve(true),
        hasColumn: () => Promise.resolve(true),
        columnType: () => Promise.resolve('VARCHAR'),
        hasPrimaryKey: () => Promise.resolve(keyed),
      });
      expect(await duckdbUpStatements(steps, catalog(false))).toEqual([]);
      const rebuild = (create: string) => [
        'ALTER TABLE session_text_fields RENAME TO session_text_fields__keyed',
        create,
        'INSERT INTO session_text_fields (service_id, key, value) SELECT service_id, key, value FROM ' +
          'session_text_fields__keyed',
        'DROP TABLE session_text_fields__keyed',
      ];
      expect(await duckdbUpStatements(steps, catalog(true))).toEqual(
        rebuild('CREATE TABLE session_text_fields (service_id VARCHAR NOT NULL, key VARCHAR NOT NULL, value VARCHAR)'),
      );
      expect(duckdbDownStatements(steps)).toEqual(
        rebuild(
          'CREATE TABLE session_text_fields (service_id VARCHAR NOT NULL, key VARCHAR NOT NULL, value VARCHAR, ' +
            'PRIMARY KEY (service_id, key))',
        ),
      );
    },
  );

  it('a later ifMissing step is a no-op where the table exists', async () => {
    const steps: MigrationStep[] = [
      { kind: 'createTable', table: frozen('domains'), types: TYPED, ifMissing: true },
      { kind: 'addColumn', table: 'domains', column: 'domain_name', type: TYPED.text },
    ];
    const has = {
      hasTable: () => Promise.resolve(true),
      hasColumn: () => Promise.resolve(true),
      columnType: () => Promise.resolve('VARCHAR'),
      hasPrimaryKey: () => Promise.resolve(true),
    };
    expect(await duckdbUpStatements(steps, has)).toEqual([]);
    const hasNot = {
      hasTable: () => Promise.resolve(false),
      hasColumn: () => Promise.resolve(false),
      columnType: () => Promise.resolve(null),
      hasPrimaryKey: () => Promise.resolve(false),
    };
    expect(await duckdbUpStatements(steps, hasNot)).toEqual([
      duckdbCreateTable(frozen('domains'), TYPED, true),
      'ALTER TABLE domains ADD COLUMN domain_name VARCHAR',
    ]);
  });
});

describe('frozenTable', () => {
  it('reads name, type and NOT NULL from each column, and refuses what it cannot read', () => {
    expect(frozenTable('t', ['id'], ['id text!', 'at timestamp', 'raw json!'], [['at']])).toEqual({
      name: 't',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'text', nullable: false },
        { name: 'at', type: 'timestamp', nullable: true },
        { name: 'raw', type: 'json', nullable: false },
      ],
      indexes: [{ columns: ['at'] }],
    });
    expect(() => frozenTable('t', ['id'], ['id varchar'])).toThrow(/'id varchar'/);
    expect(() => frozenTable('t', ['id'], ['key text'])).toThrow(/primary key column id/);
  });
});

describe('knex DDL from the frozen steps (SQLite)', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ivsync-ddl-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates tables with their columns, keys and indexes; ifMissing steps are no-ops afterwards', async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: join(dir, 'x.sqlite') },
      useNullAsDefault: true,
    });
    try {
      await applyStepsWithKnex(knex, initial.steps);
      await applyStepsWithKnex(knex, [
        { kind: 'createTable', table: frozen('authentications'), types: TYPED, ifMissing: true },
      ]);
      const columns = (await knex.raw(
        'SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(\'authentications\')',
      )) as Array<Record<string, unknown>>;
      expect(columns.map((c) => c.name)).toEqual(frozen('authentications').columns.map((c) => c.name));
      expect(columns.find((c) => c.name === 'service_id')).toMatchObject({ pk: 1, nn: 1 });
      expect(columns.find((c) => c.name === 'created_epoch')?.type).toMatch(/float|double|real/i);
      expect(columns.find((c) => c.name === 'update_counter')?.type).toMatch(/bigint/i);
      const indexes = (await knex.raw("SELECT name FROM pragma_index_list('authentications')")) as Array<{
        name: string;
      }>;
      expect(indexes.map((i) => i.name)).toEqual(
        expect.arrayContaining(['authentications_account_created_epoch_idx', 'authentications_customer_item_id_idx']),
      );
    } finally {
      await knex.destroy();
    }
  });
});

describe('session_history without a rowid (SQLite)', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ivsync-ddl-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const historyStep = MIGRATIONS.find((m) => m.name === '20261126400000_history_without_rowid')!;
  const rows = async (knex: Knex, sql: string) => (await knex.raw(sql)) as Array<Record<string, unknown>>;
  const tableSql = async (knex: Knex) =>
    String((await rows(knex, "SELECT sql FROM sqlite_schema WHERE name = 'session_history'"))[0]!.sql);
  const indexes = async (knex: Knex) =>
    (await rows(knex, "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'session_history'")).length;
  const versions = async (knex: Knex) =>
    rows(knex, 'SELECT service_id, valid_from, result_id FROM session_history ORDER BY service_id, valid_from');

  it('keeps the key as the table, no index beside it; rows and views stay; reverting puts the rowid back', async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: join(dir, 'x.sqlite') },
      useNullAsDefault: true,
    });
    try {
      const upTo = MIGRATIONS.indexOf(historyStep);
      for (const m of MIGRATIONS.slice(0, upTo)) await applyStepsWithKnex(knex, m.steps);
      // A rowid table keeps its key a second time, in an index of its own.
      expect(await indexes(knex)).toBe(1);
      await knex.raw(
        `INSERT INTO session_history
           (service_id, resource, account, valid_from, valid_to, result_id, result_final, source, api_version)
         VALUES
           ('b', 'authentications', 'default', '2026-01-02T00:00:00.000000Z', NULL, 'authentic', 1, 'search', '1.4'),
           ('a', 'authentications', 'default', '2026-01-01T00:00:00.000000Z', '2026-01-03T00:00:00.000000Z',
            'pending', 0, 'search', '1.4'),
           ('a', 'authentications', 'default', '2026-01-03T00:00:00.000000Z', NULL, 'fake', 1, 'get', '1.4')`,
      );
      const before = await versions(knex);

      await applyStepsWithKnex(knex, historyStep.steps);
      expect(isWithoutRowid(await tableSql(knex))).toBe(true);
      expect(await indexes(knex)).toBe(0);
      expect(await versions(knex)).toEqual(before);
      expect(await rows(knex, 'SELECT service_id, version FROM v_session_timeline')).toHaveLength(3);
      // The key still holds: a second version at the same start is refused.
      await expect(
        knex.raw(
          `INSERT INTO session_history (service_id, resource, account, valid_from, source, api_version)
           VALUES ('b', 'authentications', 'default', '2026-01-02T00:00:00.000000Z', 'get', '1.4')`,
        ),
      ).rejects.toThrow(/UNIQUE/);
      // Applied again (a target rebuilt already), nothing happens.
      await applyStepsWithKnex(knex, historyStep.steps);
      expect(await versions(knex)).toEqual(before);

      await revertStepsWithKnex(knex, historyStep.steps);
      expect(isWithoutRowid(await tableSql(knex))).toBe(false);
      expect(await indexes(knex)).toBe(1);
      expect(await versions(knex)).toEqual(before);
      // It reads the rebuilt table (and finds nothing: it joins the session rows, which this target lacks).
      expect(await rows(knex, 'SELECT service_id FROM v_result_turnaround')).toEqual([]);
    } finally {
      await knex.destroy();
    }
  });

  it('tells a WITHOUT ROWID statement from one that only names it', () => {
    expect(isWithoutRowid('CREATE TABLE t (a text, primary key (a)) WITHOUT ROWID')).toBe(true);
    expect(isWithoutRowid('CREATE TABLE "t" (`a` text not null, primary key (`a`)) without rowid')).toBe(true);
    expect(isWithoutRowid('CREATE TABLE t (a text, primary key (a))')).toBe(false);
    expect(isWithoutRowid("CREATE TABLE t (note text default 'WITHOUT ROWID', primary key (note))")).toBe(false);
  });
});

describe('viewSql', () => {
  it('fills the dialect fragments and leaves portable SQL alone', () => {
    const health = VIEWS.find((v) => v.name === 'v_sync_health')!;
    expect(viewSql(health, 'sqlite')).toContain("strftime('%s', 'now')");
    expect(viewSql(health, 'postgres')).toContain('EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)');
    expect(viewSql(health, 'duckdb')).not.toContain('{{');
    const pairs = VIEWS.find((v) => v.name === 'v_fingerprint_pairs')!;
    expect(viewSql(pairs, 'postgres')).toBe(pairs.sql);
    const daily = VIEWS.find((v) => v.name === 'v_daily_results')!;
    expect(viewSql(daily, 'sqlite')).toContain('SELECT substr(created_at, 1, 10) AS day');
    expect(viewSql(daily, 'duckdb')).toContain("GROUP BY CAST(created_at AT TIME ZONE 'UTC' AS DATE)");
    expect(() => viewSql({ name: 'v', sql: 'SELECT {{nope}}' }, 'sqlite')).toThrow(/no fragment nope/);
  });
});
