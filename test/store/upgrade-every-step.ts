import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import type { Dialect } from '../../src/schema/dialect.js';
import { openSink, type OpenSinkOptions } from '../../src/store/open-sink.js';
import { postgresProblem, REQUIRE_POSTGRES } from '../helpers/postgres.js';
import { runIvsync } from '../helpers/run-cli.js';
import { freshTarget, postgresUp } from '../targets/each-target.js';
import { createTargetAt } from './legacy-target.js';
import { FIXTURE_WORLD, rowsAtStep } from './step-rows.js';
import { columnsOf, tableChecksums, targetSchema, type TargetSchema } from './target-catalog.js';

/*
 * Every step on every target: a target that ran the first N migrations, as
 * the release of that step left it, is migrated to the latest. Its rows are
 * unchanged, its schema is a new target's, and the next sync goes on from its
 * checkpoints. A file per dialect (upgrade-every-step-*.test.ts), its cases
 * one after another: side by side, a DuckDB case waited on the eleven others
 * and its time was the whole dialect's, up to its timeout on a busy machine.
 * The schema of a new target is read once per dialect.
 */
const DEFAULT_WINDOWS = "SELECT resource, window_start, status, synced_to FROM sync_windows WHERE account = 'default'";

/** The simulator of the file under way (the syncs only read it), started in `describeEveryStep`. */
let sim: RunningSimulator;

/** Reads a target's schema and the checksums of its rows, through a sink opened with `options`. */
async function inspect(url: string, dialect: Dialect, options: OpenSinkOptions, keep?: TargetSchema) {
  const sink = await openSink(url, options);
  try {
    const schema = await targetSchema(sink, dialect);
    // cursor-json quotes a plain string cursor (checked below); every other value stays as it was.
    const kept = keep ? columnsOf(schema, keep) : schema;
    const checksums = await tableChecksums(sink, dialect, kept, ['sync_windows.cursor']);
    const windows = await sink.query(DEFAULT_WINDOWS);
    return { schema, checksums, windows };
  } finally {
    await sink.close();
  }
}

const freshSchemas = new Map<Dialect, Promise<TargetSchema>>();

/** The schema of a target made new by today's migrations, read once per dialect. */
function freshSchema(dialect: Dialect): Promise<TargetSchema> {
  let schema = freshSchemas.get(dialect);
  if (schema === undefined) {
    schema = (async () => {
      const fresh = await freshTarget(dialect);
      try {
        return (await inspect(fresh.url, dialect, {})).schema;
      } finally {
        await fresh.dispose();
      }
    })();
    freshSchemas.set(dialect, schema);
  }
  return schema;
}

async function upgradesAndSyncsOn(dialect: Dialect, count: number, expect: ExpectStatic): Promise<void> {
  const applied = MIGRATIONS.slice(0, count);
  const target = await freshTarget(dialect);
  try {
    const url = target.url;
    await createTargetAt(url, applied, rowsAtStep(applied, dialect));
    const before = await inspect(url, dialect, { migrations: applied });
    expect(Object.keys(before.checksums)).toContain('authentications');

    const after = await inspect(url, dialect, {}, before.schema);
    expect(after.checksums).toEqual(before.checksums);
    expect(after.schema).toEqual(await freshSchema(dialect));
    const quoted = applied.some((m) => m.name === '20261123120000_cursor-json') ? '["c",7]' : JSON.stringify('c-7');

    const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token' };
    const result = await runIvsync(['sync', '--db', url, '--rate', '5000'], env);
    expect(result.code, result.stderr).toBe(0);
    const sink = await openSink(url);
    try {
      const runs = await sink.query('SELECT command, status, requests FROM sync_runs ORDER BY started_at');
      const backfill = runs.find((r) => r.command === 'backfill')!;
      const sync = runs.find((r) => r.command === 'sync')!;
      expect(sync.status).toBe('succeeded');
      // From the checkpoints: a few requests past the high-water mark and for non-final sessions, not the history.
      expect(Number(sync.requests)).toBeLessThan(Number(backfill.requests) / 2);
      // Every window of the backfill is still covered, none was planned again.
      const windows = await sink.query(DEFAULT_WINDOWS);
      for (const w of before.windows) {
        const now = windows.find((x) => x.resource === w.resource && Number(x.window_start) === Number(w.window_start));
        expect(now, `${String(w.resource)} ${String(w.window_start)}`).toBeDefined();
        expect(['done', 'sealed']).toContain(now!.status);
        expect(Number(now!.synced_to)).toBeGreaterThanOrEqual(Number(w.synced_to));
      }
      // The window of another account keeps its place in its pass.
      const legacy = await sink.query("SELECT status, cursor FROM sync_windows WHERE account = 'legacy'");
      expect(legacy).toEqual([{ status: 'running', cursor: quoted }]);
      const [{ n }] = (await sink.query('SELECT COUNT(*) AS n FROM authentications')) as [{ n: unknown }];
      expect(Number(n)).toBe(210);
    } finally {
      await sink.close();
    }
  } finally {
    await target.dispose();
  }
}

/** The cases of one dialect: a file each, so that the three run on three of the suite's workers. */
export function describeEveryStep(dialect: Dialect): void {
  describe(`every migration step: ${dialect}`, () => {
    // Hooks here, not at the top of this module: the suite's workers load a module once for all their files.
    beforeAll(async () => {
      sim = await startSimulator({ ...FIXTURE_WORLD, rate: 5000, burst: 5000 });
    });
    afterAll(() => sim.close());
    if (dialect === 'postgres' && !postgresUp) {
      if (REQUIRE_POSTGRES)
        it('has a reachable Postgres (IVS_REQUIRE_POSTGRES=1)', () => {
          throw new Error(`${postgresProblem}, and IVS_REQUIRE_POSTGRES=1 forbids skipping the postgres target`);
        });
      return;
    }
    // Every step but the last.
    for (let count = 1; count < MIGRATIONS.length; count += 1) {
      const step = MIGRATIONS[count - 1]!.name;
      const name = `a target as of ${step} upgrades, rows kept, ends like a new one, syncs on from its checkpoints`;
      it(name, ({ expect }) => upgradesAndSyncsOn(dialect, count, expect));
    }
  });
}
