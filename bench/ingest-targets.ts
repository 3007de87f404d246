import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_PAGES_PER_COMMIT } from '../src/crawl/engine/commit-queue.js';
import { markdownTable } from './markdown-table.js';
import { offlineIngest, type NormalizeOn, type OfflineIngestFigure } from './offline-ingest.js';
import { isEntryPoint, numberFlag } from './script-args.js';
import { dropSchema } from './target-backfill.js';

/**
 * The offline ingest figure per target (normalize + write of pre-fetched
 * pages), each case repeated on a fresh database and reported as the median.
 *
 *   npm run build && node dist/bench/ingest-targets.js [sqlite duckdb postgres] \
 *     [--items N] [--runs N] [--pages-per-tx N] [--normalize main,interleaved]
 *
 * Runs of the normalize modes alternate, so a change in the machine's load
 * reaches every mode alike.
 *
 * PostgreSQL is measured when IVS_BENCH_POSTGRES_URL (or IVS_TEST_POSTGRES_URL)
 * is set, in a throw-away schema.
 */

export type IngestTarget = 'sqlite' | 'duckdb' | 'postgres';

export interface IngestTargetsOptions {
  targets?: readonly IngestTarget[];
  /** @default 100000 */
  items?: number;
  /** Fresh databases per target; the median is reported. @default 3 */
  runs?: number;
  /** @default MAX_PAGES_PER_COMMIT, as a backfill's group commit */
  pagesPerTransaction?: number;
  /**
   * Where pages are normalized (see offlineIngest); a row per mode. By
   * default `main` for SQLite, whose statements run on the main thread and
   * leave no wait to fill, and `interleaved` for the others.
   */
  normalizeOn?: readonly NormalizeOn[];
  /** @default IVS_BENCH_POSTGRES_URL, else IVS_TEST_POSTGRES_URL; postgres is left out without one */
  postgresUrl?: string;
}

export interface IngestTargetRow {
  target: IngestTarget;
  normalizeOn: NormalizeOn;
  items: number;
  pagesPerTransaction: number;
  runs: number;
  fresh: number;
  replace: number;
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function ingestTargets(options: IngestTargetsOptions = {}): Promise<IngestTargetRow[]> {
  const postgresUrl = options.postgresUrl ?? process.env.IVS_BENCH_POSTGRES_URL ?? process.env.IVS_TEST_POSTGRES_URL;
  const targets = (options.targets ?? ['sqlite', 'duckdb', 'postgres']).filter((t) => t !== 'postgres' || postgresUrl);
  const runs = options.runs ?? 3;
  const items = options.items ?? 100_000;
  const pagesPerTransaction = options.pagesPerTransaction ?? MAX_PAGES_PER_COMMIT;
  const dir = await mkdtemp(join(tmpdir(), 'ivsync-ingest-'));
  const rows: IngestTargetRow[] = [];
  try {
    for (const target of targets) {
      const modes = options.normalizeOn ?? [target === 'sqlite' ? 'main' : 'interleaved'];
      const figures = new Map<NormalizeOn, OfflineIngestFigure[][]>(modes.map((m) => [m, []]));
      for (let run = 0; run < runs; run++) {
        for (const normalizeOn of modes) {
          const name = `${target}-${randomBytes(4).toString('hex')}`;
          let url: string;
          if (target === 'postgres') {
            const u = new URL(postgresUrl ?? '');
            u.searchParams.set('schema', name.replace('-', '_'));
            url = u.toString();
          } else url = `${target}:${join(dir, `${name}.${target}`)}`;
          try {
            figures.get(normalizeOn)!.push(await offlineIngest(url, { items, pagesPerTransaction, normalizeOn }));
          } finally {
            if (target === 'postgres') await dropSchema(postgresUrl ?? '', name.replace('-', '_'));
            else await rm(join(dir, `${name}.${target}`), { force: true });
          }
        }
      }
      for (const [normalizeOn, runsOfMode] of figures) {
        const rate = (mode: OfflineIngestFigure['mode']) =>
          median(runsOfMode.map((f) => f.find((x) => x.mode === mode)?.itemsPerSecond ?? 0));
        rows.push({
          target,
          normalizeOn,
          items,
          pagesPerTransaction,
          runs,
          fresh: rate('fresh'),
          replace: rate('replace'),
        });
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

export function ingestTable(rows: readonly IngestTargetRow[]): string {
  const header = ['target', 'normalize', 'items', 'pages/tx', 'items/tx', 'runs', 'fresh items/s', 'replace items/s'];
  const lines = rows.map((r) => [
    r.target,
    r.normalizeOn,
    String(r.items),
    String(r.pagesPerTransaction),
    String(r.pagesPerTransaction * 25),
    String(r.runs),
    Math.round(r.fresh).toString(),
    Math.round(r.replace).toString(),
  ]);
  return markdownTable(header, lines);
}

if (isEntryPoint(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = (name: string): number | undefined => numberFlag(args, name);
  const targets = args.filter((a): a is IngestTarget => a === 'sqlite' || a === 'duckdb' || a === 'postgres');
  const modesAt = args.indexOf('--normalize');
  const normalizeOn = (modesAt >= 0 ? (args[modesAt + 1] ?? '').split(',') : []).filter(
    (m): m is NormalizeOn => m === 'main' || m === 'interleaved',
  );
  const rows = await ingestTargets({
    ...(targets.length > 0 ? { targets } : {}),
    ...(flag('--items') !== undefined ? { items: flag('--items') } : {}),
    ...(flag('--runs') !== undefined ? { runs: flag('--runs') } : {}),
    ...(flag('--pages-per-tx') !== undefined ? { pagesPerTransaction: flag('--pages-per-tx') } : {}),
    ...(normalizeOn.length > 0 ? { normalizeOn } : {}),
  });
  console.log(ingestTable(rows));
}
