import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import pg from 'pg';
import { expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import type { Dialect } from '../../src/schema/dialect.js';
import { openSink } from '../../src/store/open-sink.js';
import { parseTarget } from '../../src/store/target/parse-target.js';
import { POSTGRES_URL } from '../helpers/postgres.js';
import { spawnIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { eachTarget, freshTarget } from '../targets/each-target.js';
import { FIXTURE_DIR, FIXTURE_WORLD } from './step-rows.js';
import { columnsOf, tableChecksums, targetSchema, type TargetSchema } from './target-catalog.js';

const simulator = useSimulators({ ...FIXTURE_WORLD, rate: 1000 });

/** The schema name the PostgreSQL dump was taken from. */
const DUMPED_SCHEMA = 'ivsync_fixture_8adc796';

/** Puts the fixture the first release wrote at `url`: a copy of the file, or the dump loaded into its schema. */
async function placeFixture(dialect: Dialect, url: string): Promise<void> {
  const target = parseTarget(url);
  if (target.kind === 'sqlite') {
    copyFileSync(`${FIXTURE_DIR}ivsync.sqlite`, target.path);
  } else if (target.kind === 'duckdb') {
    writeFileSync(target.path, gunzipSync(readFileSync(`${FIXTURE_DIR}ivsync.duckdb.gz`)));
  } else {
    const dump = readFileSync(`${FIXTURE_DIR}ivsync.${dialect}.sql`, 'utf8').replaceAll(DUMPED_SCHEMA, target.schema);
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(dump);
    } finally {
      await client.end();
    }
  }
}

/**
 * The schema of a new target, read after it was closed once, as an upgraded
 * one is: DuckDB spells a view's types differently in the session that created it.
 */
async function freshSchema(dialect: Dialect): Promise<TargetSchema> {
  const fresh = await freshTarget(dialect);
  try {
    await (await openSink(fresh.url)).close();
    return (await inspect(fresh.url, dialect)).schema;
  } finally {
    await fresh.dispose();
  }
}

async function inspect(url: string, dialect: Dialect, migrations = MIGRATIONS) {
  const sink = await openSink(url, { migrations });
  try {
    const schema = await targetSchema(sink, dialect);
    return { schema, checksums: await tableChecksums(sink, dialect, schema) };
  } finally {
    await sink.close();
  }
}

eachTarget((dialect, target) => {
  it("a target the first release (8adc796) wrote opens, migrates and syncs on with today's ivsync", async () => {
    const { url } = target();
    await placeFixture(dialect, url);
    // As the first release left it: its one migration run, its backfill stored.
    const before = await inspect(url, dialect, MIGRATIONS.slice(0, 1));
    expect(before.checksums.authentications).toMatch(/^210:/);
    expect(before.schema.tables.verify_runs).toBeUndefined();

    const sim = await simulator();
    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token' };
    const run = async (...command: string[]) => {
      const result = await spawnIvsync([...command, '--db', url], env).exited;
      expect(result.code, `${command[0]}: ${result.stderr}`).toBe(0);
    };
    await run('migrate');
    const after = await openSink(url);
    try {
      const ran = await after.query('SELECT name FROM knex_migrations ORDER BY id');
      expect(ran.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
      // Every row and raw as the first release stored them.
      const kept = columnsOf(await targetSchema(after, dialect), before.schema);
      expect(await tableChecksums(after, dialect, kept)).toEqual(before.checksums);
      expect(await targetSchema(after, dialect)).toEqual(await freshSchema(dialect));
    } finally {
      await after.close();
    }

    await run('status', '--json');
    await run('sync', '--rate', '1000');
    const sink = await openSink(url);
    try {
      const runs = await sink.query('SELECT command, status, requests FROM sync_runs ORDER BY started_at');
      expect(runs.map((r) => [r.command, r.status])).toEqual([
        ['backfill', 'succeeded'],
        ['sync', 'succeeded'],
      ]);
      // From the checkpoints: the sync asked for far less than the backfill did.
      expect(Number(runs[1]!.requests)).toBeLessThan(Number(runs[0]!.requests) / 2);
      const pending = await sink.query("SELECT COUNT(*) AS n FROM sync_windows WHERE status NOT IN ('done', 'sealed')");
      expect(Number(pending[0]!.n)).toBe(0);
      // The same world as the backfill's: the sync found no session the first release had not stored.
      const counts = await sink.query(
        'SELECT (SELECT COUNT(*) FROM authentications) AS a, (SELECT COUNT(*) FROM fingerprints) AS f',
      );
      expect(counts.map((c) => [Number(c.a), Number(c.f)])).toEqual([[210, 90]]);
    } finally {
      await sink.close();
    }
  });
});
