import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import { duckdbCreateTable, duckdbDownStatements, duckdbUpStatements } from '../../src/store/duckdb-ddl.js';
import { DUCKDB_KEYLESS_TABLES } from '../../src/store/duckdb-keyless.js';
import { applyStepsWithKnex } from '../../src/store/knex-ddl.js';
import type { MigrationStep } from '../../src/store/migration-step.js';
import { table, TABLES } from '../../src/store/schema.js';
import { VIEWS, VIEWS_BEFORE_REFRESH, viewSql } from '../../src/store/views.js';

describe('DuckDB DDL from the schema definition', () => {
  it('maps every column type and keeps the primary key', () => {
    expect(duckdbCreateTable(table('sync_leases'))).toBe(
      'CREATE TABLE sync_leases (name VARCHAR NOT NULL, holder VARCHAR NOT NULL, acquired_at TIMESTAMPTZ NOT NULL, heartbeat_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (name))',
    );
    const sql = duckdbCreateTable(table('webhooks'));
    expect(sql).toContain('filters JSON,');
    expect(sql).toContain('created_epoch DOUBLE,');
    expect(sql).toContain('active BOOLEAN NOT NULL');
    expect(duckdbCreateTable(table('sync_windows'))).toContain('window_start BIGINT NOT NULL');
  });

  it('the initial migration creates every table of TABLES and every view', async () => {
    const none = { hasTable: () => Promise.resolve(false), hasColumn: () => Promise.resolve(false), columnType: () => Promise.resolve(null), hasPrimaryKey: () => Promise.resolve(false) };
    const statements = await duckdbUpStatements(MIGRATIONS[0]!.steps, none);
    expect(statements).toHaveLength(TABLES.length + VIEWS.length);
    for (const t of TABLES) expect(statements).toContain(duckdbCreateTable(t));
    expect(duckdbDownStatements(MIGRATIONS[0]!.steps)[0]).toBe(`DROP VIEW IF EXISTS ${VIEWS[VIEWS.length - 1]!.name}`);
  });

  it('the typed-time migration retypes each text time around dropped views, and does nothing to typed columns', async () => {
    const typedTime = MIGRATIONS.find((m) => m.name === '20261123000000_typed_time')!;
    // A catalog whose times have the type `time` (its JSON columns are JSON, in DuckDB before and after).
    const catalog = (time: string) => ({
      hasTable: () => Promise.resolve(true),
      hasColumn: () => Promise.resolve(true),
      columnType: (t: string, c: string) => Promise.resolve(table(t).columns.find((x) => x.name === c)?.type === 'json' ? 'JSON' : time),
      hasPrimaryKey: () => Promise.resolve(true),
    });
    const fromText = await duckdbUpStatements(typedTime.steps, catalog('VARCHAR'));
    const times = TABLES.flatMap((t) => t.columns.filter((c) => c.type === 'timestamp'));
    expect(fromText.slice(0, VIEWS.length)).toEqual(VIEWS.map((v) => `DROP VIEW IF EXISTS ${v.name}`));
    // The views as they were when the migration was written: v_sync_health without its refresh columns (a later migration adds them).
    expect(fromText.slice(-VIEWS.length)).toEqual(VIEWS_BEFORE_REFRESH.map((v) => `CREATE VIEW ${v.name} AS ${viewSql(v, 'duckdb')}`));
    const alters = fromText.slice(VIEWS.length, -VIEWS.length);
    expect(alters).toHaveLength(times.length);
    expect(alters).toContain('ALTER TABLE sync_leases ALTER COLUMN heartbeat_at SET DATA TYPE TIMESTAMPTZ USING CAST(heartbeat_at AS TIMESTAMPTZ)');
    // DuckDB's catalog spells the type out.
    expect(await duckdbUpStatements(typedTime.steps, catalog('TIMESTAMP WITH TIME ZONE'))).toEqual([]);
    expect(duckdbDownStatements(typedTime.steps)).toContain(
      "ALTER TABLE sync_leases ALTER COLUMN heartbeat_at SET DATA TYPE VARCHAR USING strftime(timezone('UTC', heartbeat_at), '%Y-%m-%dT%H:%M:%S.%fZ')",
    );
  });

  it('leaves the primary key out of the tables that grow with the history, never their NOT NULL', () => {
    const sql = duckdbCreateTable(table('session_text_fields'));
    expect(sql).toBe('CREATE TABLE session_text_fields (service_id VARCHAR NOT NULL, key VARCHAR NOT NULL, value VARCHAR)');
    for (const name of DUCKDB_KEYLESS_TABLES) expect(duckdbCreateTable(table(name))).not.toContain('PRIMARY KEY');
    expect(duckdbCreateTable(table('session_refresh'))).toContain('PRIMARY KEY (resource, service_id)');
  });

  it('the keyless migration rebuilds only a table that still has its key, and reverting puts the key back', async () => {
    const steps: MigrationStep[] = [{ kind: 'duckdbKeyless', tables: ['session_text_fields'] }];
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
      'INSERT INTO session_text_fields (service_id, key, value) SELECT service_id, key, value FROM session_text_fields__keyed',
      'DROP TABLE session_text_fields__keyed',
    ];
    expect(await duckdbUpStatements(steps, catalog(true))).toEqual(rebuild(duckdbCreateTable(table('session_text_fields'))));
    expect(duckdbDownStatements(steps)).toEqual(
      rebuild('CREATE TABLE session_text_fields (service_id VARCHAR NOT NULL, key VARCHAR NOT NULL, value VARCHAR, PRIMARY KEY (service_id, key))'),
    );
  });

  it('a later ifMissing step is a no-op where the table exists', async () => {
    const steps: MigrationStep[] = [
      { kind: 'createTable', table: table('domains'), ifMissing: true },
      { kind: 'addColumn', table: 'domains', column: 'domain_name' },
    ];
    const has = { hasTable: () => Promise.resolve(true), hasColumn: () => Promise.resolve(true), columnType: () => Promise.resolve('VARCHAR'), hasPrimaryKey: () => Promise.resolve(true) };
    expect(await duckdbUpStatements(steps, has)).toEqual([]);
    const hasNot = { hasTable: () => Promise.resolve(false), hasColumn: () => Promise.resolve(false), columnType: () => Promise.resolve(null), hasPrimaryKey: () => Promise.resolve(false) };
    expect(await duckdbUpStatements(steps, hasNot)).toEqual([duckdbCreateTable(table('domains')), 'ALTER TABLE domains ADD COLUMN domain_name VARCHAR']);
  });
});

describe('knex DDL from the schema definition (SQLite)', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ivsync-ddl-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates tables with their columns, keys and indexes; ifMissing steps are no-ops afterwards', async () => {
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: join(dir, 'x.sqlite') }, useNullAsDefault: true });
    try {
      await applyStepsWithKnex(knex, MIGRATIONS[0]!.steps);
      await applyStepsWithKnex(knex, [{ kind: 'createTable', table: table('authentications'), ifMissing: true }]);
      const columns = (await knex.raw("SELECT name, type, \"notnull\" AS nn, pk FROM pragma_table_info('authentications')")) as Array<Record<string, unknown>>;
      expect(columns.map((c) => c.name)).toEqual(table('authentications').columns.map((c) => c.name));
      expect(columns.find((c) => c.name === 'service_id')).toMatchObject({ pk: 1, nn: 1 });
      expect(columns.find((c) => c.name === 'created_epoch')?.type).toMatch(/float|double|real/i);
      expect(columns.find((c) => c.name === 'update_counter')?.type).toMatch(/bigint/i);
      const indexes = (await knex.raw("SELECT name FROM pragma_index_list('authentications')")) as Array<{ name: string }>;
      expect(indexes.map((i) => i.name)).toEqual(expect.arrayContaining(['authentications_account_created_epoch_idx', 'authentications_customer_item_id_idx']));
    } finally {
      await knex.destroy();
    }
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
    expect(() => viewSql({ name: 'v', description: '', sql: 'SELECT {{nope}}' }, 'sqlite')).toThrow(/no fragment nope/);
  });
});
