import { performance } from 'node:perf_hooks';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { MAX_PAGES_PER_COMMIT } from '../src/crawl/engine/commit-queue.js';
import { openSink } from '../src/store/open-sink.js';
import { table } from '../src/schema/schema.js';
import { offlineIngest } from './offline-ingest.js';
import { isEntryPoint, numberFlag } from './script-args.js';

/**
 * DuckDB's own ceiling for the offline ingest: the rows of the same items,
 * already inside DuckDB (in memory, in TEMP tables), moved into a fresh
 * target's tables by INSERT … SELECT, in transactions of as many items as the
 * ingest commits at once; then once more as a newer observation (the sink's
 * replace path: upsert the sessions, delete and insert their child rows). No
 * JavaScript runs in the timed part, so no writer from Node can be faster.
 *
 *   npm run build && node dist/bench/duckdb-ceiling.js [--items N] [--runs N] [--items-per-tx N] [--no-keys]
 */

export interface CeilingFigure {
  items: number;
  itemsPerTransaction: number;
  fresh: number;
  replace: number;
}

const TABLES = ['authentications', 'session_text_fields', 'session_images'] as const;
const CHILDREN = ['session_text_fields', 'session_images'] as const;

const columns = (name: string): string =>
  table(name)
    .columns.map((c) => c.name)
    .join(', ');

async function timedGroups(
  connection: DuckDBConnection,
  groups: number,
  statements: (group: number) => string[],
): Promise<number> {
  const started = performance.now();
  for (let g = 0; g < groups; g++) {
    await connection.run('BEGIN TRANSACTION');
    for (const sql of statements(g)) await connection.run(sql);
    await connection.run('COMMIT');
  }
  return (performance.now() - started) / 1000;
}

export interface CeilingOptions {
  /** @default 100000 */
  items?: number;
  /** @default 3 */
  runs?: number;
  /** @default MAX_PAGES_PER_COMMIT pages of 25 */
  itemsPerTransaction?: number;
  /**
   * Drop the primary keys (and with them the views) first: what the same load costs without any index. @default false
   */
  noKeys?: boolean;
}

export async function duckdbCeiling(options: CeilingOptions = {}): Promise<CeilingFigure> {
  const items = options.items ?? 100_000;
  const runs = options.runs ?? 3;
  const perTransaction = options.itemsPerTransaction ?? MAX_PAGES_PER_COMMIT * 25;
  const groups = Math.ceil(items / perTransaction);
  const dir = await mkdtemp(join(tmpdir(), 'ivsync-ceiling-'));
  try {
    // The rows, as ivsync stores them, in a source file (untimed).
    const source = join(dir, 'source.duckdb');
    await offlineIngest(`duckdb:${source}`, { items });
    const fresh: number[] = [];
    const replace: number[] = [];
    for (let run = 0; run < runs; run++) {
      const path = join(dir, `target-${run}.duckdb`);
      // The same migrations as a real target: its tables, keys and views.
      await (await openSink(`duckdb:${path}`)).close();
      const instance = await DuckDBInstance.create(path, { checkpoint_threshold: '1024MB' });
      const connection = await instance.connect();
      try {
        await connection.run(`ATTACH '${source.replaceAll("'", "''")}' AS source (READ_ONLY)`);
        await connection.run(
          `CREATE TEMP TABLE stage_authentications AS
           SELECT (row_number() OVER (ORDER BY created_epoch, service_id) - 1) // ${perTransaction} AS grp, * FROM ` +
            `source.authentications`,
        );
        for (const child of CHILDREN) {
          await connection.run(
            `CREATE TEMP TABLE stage_${child} AS SELECT a.grp, c.* FROM source.${child} c JOIN ` +
              `stage_authentications a USING (service_id)`,
          );
        }
        await connection.run('DETACH source');
        if (options.noKeys === true) {
          for (const name of TABLES) {
            await connection.run(`CREATE TABLE ${name}_bare AS SELECT * FROM ${name} LIMIT 0`);
            await connection.run(`DROP TABLE ${name} CASCADE`);
            await connection.run(`ALTER TABLE ${name}_bare RENAME TO ${name}`);
          }
        }
        const seconds = await timedGroups(connection, groups, (g) =>
          TABLES.map(
            (name) =>
              `INSERT INTO ${name} (${columns(name)}) SELECT ${columns(name)} FROM stage_${name} WHERE grp = ${g}`,
          ),
        );
        fresh.push(items / seconds);
        // Without keys there is nothing to upsert against.
        if (options.noKeys === true) continue;
        const again = await timedGroups(connection, groups, (g) => [
          `INSERT OR REPLACE INTO authentications (${columns('authentications')})
           SELECT ${columns('authentications')} FROM stage_authentications WHERE grp = ${g}`,
          ...CHILDREN.flatMap((child) => [
            `DELETE FROM ${child} WHERE service_id IN (SELECT service_id FROM stage_authentications WHERE grp = ${g})`,
            `INSERT INTO ${child} (${columns(child)}) SELECT ${columns(child)} FROM stage_${child} WHERE grp = ${g}`,
          ]),
        ]);
        replace.push(items / again);
      } finally {
        connection.closeSync();
        instance.closeSync();
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    return {
      items,
      itemsPerTransaction: perTransaction,
      fresh: median(fresh),
      replace: replace.length > 0 ? median(replace) : Number.NaN,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function ceilingLine(figure: CeilingFigure): string {
  return (
    `DuckDB's own ceiling (the same rows already inside DuckDB, INSERT … SELECT, ${figure.itemsPerTransaction} ` +
    `items a transaction, median): ` +
    `fresh ${Math.round(figure.fresh)} items/s` +
    (Number.isNaN(figure.replace) ? '' : `, replace ${Math.round(figure.replace)} items/s`)
  );
}

if (isEntryPoint(import.meta.url)) {
  const args = process.argv.slice(2);
  const items = numberFlag(args, '--items');
  const runs = numberFlag(args, '--runs');
  const perTransaction = numberFlag(args, '--items-per-tx');
  const noKeys = args.includes('--no-keys');
  const figure = await duckdbCeiling({
    ...(items !== undefined ? { items } : {}),
    ...(runs !== undefined ? { runs } : {}),
    ...(perTransaction !== undefined ? { itemsPerTransaction: perTransaction } : {}),
    noKeys,
  });
  console.log(`${ceilingLine(figure)}${noKeys ? ', with no primary keys' : ''}`);
}
