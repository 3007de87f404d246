import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PAGE_LIMIT } from '../src/api/route-book.js';
import { startSimulator } from '../src/simulator/index.js';
import { DEFAULT_TO_EPOCH } from '../src/simulator/simulator-options.js';
import { openSink } from '../src/store/open-sink.js';
import { markdownTable } from './markdown-table.js';
import { dropSchema } from './target-backfill.js';
import { launch } from './cli-launch.js';
import { watchCollectorPauses, type CollectorPauses } from './collector-pauses.js';
import { walCounters, walFigures, type WalFigures } from './postgres-wal.js';
import { statementCounters, topStatements, type StatementShare } from './server-statements.js';

/**
 * The scale benchmark: a backfill of the simulator's whole history at a
 * request rate high enough that the process, not the limit, sets the pace;
 * then one idle `sync`, `status`, `status --json`, `export --to parquet:`,
 * `export --to duckdb:` and `verify --budget 100` against the filled target. Every command runs in its
 * own child process, so its peak RSS and CPU time are its own.
 */

const REPORTER = fileURLToPath(new URL('./usage-reporter.js', import.meta.url));

/** The service's real limit and the daemon's default schedule, for what a sync costs in production. */
const REAL_RATE = 10;
/**
 * The refresh budget a sync gets by default at the real limit and the 5-minute schedule (rate × gap / 5): the bench
 * lifts the rate, which would lift the budget with it.
 */
const REAL_REFRESH_BUDGET = (REAL_RATE * 300) / 5;
const RUNS_PER_HOUR = 12;
/** The server's statements named under the backfill table, when it counts them (server-statements.ts). */
const STATEMENTS_SHOWN = 6;

export type ScaleTarget = 'sqlite' | 'duckdb' | 'postgres';

export interface ScaleOptions {
  sessions: number;
  target: ScaleTarget;
  /** Needed for the postgres target: a throw-away schema of it is used. */
  postgresUrl?: string;
  /** Requests per second the simulator allows and the client spends. @default 100000 */
  rate?: number;
  /** Keep the run's directory (and Postgres schema) to look at afterwards. */
  keep?: boolean;
}

export interface CommandFigure {
  command: string;
  seconds: number;
  peakRssMb: number;
  cpuMs: number;
  requests: number;
  exitCode: number;
  /** What the command said last when it failed (verify's 4, drift found, is not a failure). */
  failed?: string;
}

export interface ScaleRun {
  target: ScaleTarget;
  sessions: number;
  items: number;
  backfill: CommandFigure;
  storedBytes: number;
  /** Bytes of session_history (its rows and its key), of storedBytes, after the whole run. */
  historyBytes: number;
  minRequests: number;
  sync: CommandFigure;
  /** `tier: age` of the oldest check per refresh tier, when `status --json` tells it. */
  oldestCheckByTier: string;
  commands: CommandFigure[];
  /** The simulator's collector pauses during the backfill (it runs in the bench's process). */
  simulatorPauses: CollectorPauses;
  /** Postgres only: what the server wrote to its WAL during the backfill, and its settings. */
  wal?: WalFigures | undefined;
  /** Postgres only, with pg_stat_statements: the statements that took the server's time during the backfill. */
  statements?: StatementShare[];
}

interface Usage {
  maxRssKb: number;
  userMs: number;
  systemMs: number;
}

/**
 * Runs the CLI in a child process with the usage reporter preloaded. With
 * `stopWhen`, a long-running command (the daemon) is sent SIGTERM once its log
 * so far satisfies it, and must then exit 0.
 */
export async function runCli(
  label: string,
  args: readonly string[],
  env: Record<string, string>,
  dir: string,
  requestsServed: () => number,
  stopWhen?: (log: string) => boolean,
): Promise<CommandFigure & { stdout: string }> {
  const usageFile = join(dir, `usage-${randomBytes(4).toString('hex')}.json`);
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  const before = requestsServed();
  const started = Date.now();
  const code = await new Promise<number>((resolve, reject) => {
    const cli = launch(args, { ...env, IVS_BENCH_USAGE_FILE: usageFile }, [REPORTER]);
    const child = spawn(cli.file, cli.args, { env: cli.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    // Log lines would interleave with the tables; they are shown only when the command fails.
    let stopping = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      if (stopWhen && !stopping && stopWhen(Buffer.concat(stderr).toString('utf8'))) {
        stopping = true;
        child.kill('SIGTERM');
      }
    });
    child.on('error', reject);
    child.on('close', (c) => resolve(c ?? -1));
  });
  const seconds = (Date.now() - started) / 1000;
  const usage = existsSync(usageFile)
    ? (JSON.parse(readFileSync(usageFile, 'utf8')) as Usage)
    : { maxRssKb: 0, userMs: 0, systemMs: 0 };
  const figure: CommandFigure & { stdout: string } = {
    command: label,
    seconds,
    peakRssMb: usage.maxRssKb / 1024,
    cpuMs: usage.userMs + usage.systemMs,
    requests: requestsServed() - before,
    exitCode: code,
    stdout: Buffer.concat(stdout).toString('utf8'),
  };
  // verify exits 4 when it found drift: a finding, not a failure of the command.
  if (code !== 0 && !(args[0] === 'verify' && code === 4)) {
    const lines = Buffer.concat(stderr).toString('utf8').trim().split('\n');
    figure.failed = `exit ${code}: ${lines.at(-1)?.slice(0, 400) ?? ''}`;
  }
  // Each command's figures as it ends: at ten million sessions a run takes an hour, and a later failure must not
  // take the earlier figures with it.
  const { stdout: _output, ...shown } = figure;
  console.log(JSON.stringify({ scaleCommand: shown }));
  return figure;
}

function fileBytes(path: string): number {
  let total = 0;
  for (const file of [path, `${path}-wal`, `${path}.wal`]) if (existsSync(file)) total += statSync(file).size;
  return total;
}

async function postgresBytes(url: string, schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ n: string | null }>(
      `SELECT sum(pg_total_relation_size(c.oid)) AS n FROM pg_class c JOIN pg_namespace s ON s.oid = ` +
        `c.relnamespace WHERE s.nspname = $1 AND c.relkind = 'r'`,
      [schema],
    );
    return Number(result.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * What session_history takes in the target, in its table session_versions (the view adds the rows of sessions
 * that never changed, which cost nothing more): its pages in SQLite (dbstat, the
 * key's index included), its relation with index and TOAST in PostgreSQL, and
 * its blocks in DuckDB (blocks of 256 KiB, the unit DuckDB allocates).
 */
async function historyBytes(target: ScaleTarget, path: string, postgresUrl: string, schema: string): Promise<number> {
  if (target === 'sqlite') {
    const db = new Database(path, { readonly: true });
    try {
      const sql = `SELECT sum(pgsize) AS n FROM dbstat
                   WHERE name = 'session_versions' OR name LIKE 'sqlite_autoindex_session_versions%'`;
      const row = db.prepare(sql).get() as { n: number | null };
      return row.n ?? 0;
    } finally {
      db.close();
    }
  }
  if (target === 'duckdb') {
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT count(DISTINCT block_id) AS n FROM pragma_storage_info('session_versions')
         WHERE block_id IS NOT NULL AND block_id >= 0`,
      );
      return Number(reader.getRowObjectsJS()[0]?.n ?? 0) * 262_144;
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  }
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    const sql = `SELECT pg_total_relation_size(format('%I.session_versions', $1::text)::regclass) AS n`;
    const result = await client.query<{ n: string | null }>(sql, [schema]);
    return Number(result.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * `tier: age s` for each object of `status --json` that names a `tier` and an
 * oldest check: the shape of the refresh report is not fixed here, so it is
 * looked for rather than read from one place.
 */
export function oldestCheckByTier(json: unknown): string {
  const found: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    // The age in seconds when the report gives it, else whatever names the oldest check.
    const keys = Object.keys(record);
    const oldestKey = keys.find((k) => /oldest.*age/i.test(k)) ?? keys.find((k) => /oldest/i.test(k));
    if (typeof record.tier === 'string' && oldestKey !== undefined)
      found.push(`${record.tier}: ${String(record[oldestKey])}`);
    Object.values(record).forEach(visit);
  };
  visit(json);
  return found.length > 0 ? found.join(', ') : '-';
}

/** What the simulator's world takes per session, with room for the heap to work (measured: 579 bytes at 1M). */
const SIMULATOR_BYTES_PER_SESSION = 900;

/**
 * The simulator holds the whole history in this process: fail at once, with the flag to pass, when V8's heap
 * limit cannot hold it (10M sessions take about 6 GB; `npm run bench` gives the heap 12 GB), not minutes in.
 */
function assertHeapFor(sessions: number): void {
  const limit = getHeapStatistics().heap_size_limit;
  const needed = sessions * SIMULATOR_BYTES_PER_SESSION;
  if (needed <= limit) return;
  const mb = Math.ceil(needed / 2 ** 20 / 1024) * 1024;
  throw new Error(
    `the simulator needs about ${Math.round(needed / 2 ** 30)} GB of heap for ${sessions} sessions and V8 allows ` +
      `${(limit / 2 ** 30).toFixed(1)}: run node --max-old-space-size=${mb} dist/bench/run.js ` +
      '(npm run bench sets 12288)',
  );
}

/** One full scale run on a fresh target; the simulator and the target are removed afterwards. */
export async function scaleRun(options: ScaleOptions): Promise<ScaleRun> {
  assertHeapFor(options.sessions);
  const rate = options.rate ?? 100_000;
  const sim = await startSimulator({
    sessions: options.sessions,
    seed: 42,
    rate,
    burst: rate,
    latencyMs: 0,
    otherOwnerSessions: 0,
  });
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-scale-'));
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  let db: string;
  if (options.target === 'postgres') {
    if (!options.postgresUrl)
      throw new Error('the postgres target needs IVS_BENCH_POSTGRES_URL or IVS_TEST_POSTGRES_URL');
    const url = new URL(options.postgresUrl);
    url.searchParams.set('schema', schema);
    db = url.toString();
  } else db = `${options.target}:${join(dir, `scale.${options.target}`)}`;
  try {
    const config = join(dir, 'ivsync.json');
    writeFileSync(config, JSON.stringify({ crawl: { concurrency: 24 } }));
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: db,
      IVS_CONFIG: config,
      IVS_RATE: String(rate),
    };
    const served = () => sim.stats.requests;
    const run = (label: string, args: readonly string[], stopWhen?: (log: string) => boolean) =>
      runCli(label, args, env, dir, served, stopWhen);
    const walBefore = options.target === 'postgres' ? await walCounters(options.postgresUrl ?? '') : null;
    const statementsBefore = options.target === 'postgres' ? await statementCounters(options.postgresUrl ?? '') : null;
    const stopWatching = watchCollectorPauses();
    const backfill = await run('backfill', [
      'backfill',
      '--from',
      String(DEFAULT_TO_EPOCH - 366 * 86_400),
      '--to',
      String(DEFAULT_TO_EPOCH),
      '--json',
    ]);
    const simulatorPauses = stopWatching();
    // Without the history nothing after it measures anything; a later command that fails is a row that says so.
    if (backfill.failed !== undefined) throw new Error(`backfill failed: ${backfill.failed}`);
    const walAfter = options.target === 'postgres' ? await walCounters(options.postgresUrl ?? '') : null;
    const statementsAfter = options.target === 'postgres' ? await statementCounters(options.postgresUrl ?? '') : null;
    const sync = await run('sync (idle)', ['sync', '--json', '--refresh-budget', String(REAL_REFRESH_BUDGET)]);
    // The daemon: its receiver and metrics served, two scheduled idle syncs, then SIGTERM.
    const ticks = (log: string) =>
      (log.match(/"msg":"sync (finished|succeeded|failed|interrupted)"/g) ?? []).length >= 2;
    const daemon = await run(
      'daemon (2 idle ticks)',
      ['daemon', '--schedule', '*/20 * * * * *', '--port', '0', '--refresh-budget', String(REAL_REFRESH_BUDGET)],
      ticks,
    );
    const status = await run('status', ['status']);
    const statusJson = await run('status --json', ['status', '--json']);
    const exported = await run('export --to parquet:', ['export', '--to', `parquet:${join(dir, 'parquet')}`]);
    const exportedDuckdb = await run('export --to duckdb:', ['export', '--to', `duckdb:${join(dir, 'export.duckdb')}`]);
    const verify = await run('verify --budget 100', ['verify', '--budget', '100', '--json']);
    const sink = await openSink(db);
    let items = 0;
    try {
      const [row] = await sink.query(
        'SELECT (SELECT COUNT(*) FROM authentications) + (SELECT COUNT(*) FROM fingerprints) AS n',
      );
      items = Number(row?.n ?? 0);
    } finally {
      await sink.close();
    }
    let minRequests = 0;
    for (const resource of ['authentications', 'fingerprints'] as const)
      minRequests += Math.ceil(sim.world.truth('test-token', resource).length / PAGE_LIMIT);
    const storedBytes =
      options.target === 'postgres'
        ? await postgresBytes(options.postgresUrl ?? '', schema)
        : fileBytes(join(dir, `scale.${options.target}`));
    const file = join(dir, `scale.${options.target}`);
    const history = await historyBytes(options.target, file, options.postgresUrl ?? '', schema);
    return {
      target: options.target,
      sessions: options.sessions,
      items,
      backfill,
      simulatorPauses,
      storedBytes,
      historyBytes: history,
      minRequests,
      sync,
      oldestCheckByTier:
        statusJson.failed === undefined ? oldestCheckByTier(JSON.parse(statusJson.stdout) as unknown) : '-',
      commands: [daemon, status, statusJson, exported, exportedDuckdb, verify],
      wal: walFigures(walBefore, walAfter, items),
      statements: topStatements(statementsBefore, statementsAfter, STATEMENTS_SHOWN),
    };
  } finally {
    await sim.close();
    if (options.keep) console.log(JSON.stringify({ scaleKept: options.target === 'postgres' ? schema : dir }));
    else {
      if (options.target === 'postgres') await dropSchema(options.postgresUrl ?? '', schema);
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/**
 * A run's items/s over that of the same target's run of the fewest sessions
 * in the same command (`--sessions 1000000,10000000`: the goal of a 10M
 * backfill within 20% of its 1M pace); '-' for that run itself, or alone.
 */
function paceOfSmallest(run: ScaleRun, runs: readonly ScaleRun[]): string {
  const pace = (r: ScaleRun) => r.items / r.backfill.seconds;
  const smallest = runs
    .filter((r) => r.target === run.target)
    .reduce((least, r) => (r.sessions < least.sessions ? r : least), run);
  return smallest === run ? '-' : (pace(run) / pace(smallest)).toFixed(2);
}

export function backfillTable(runs: readonly ScaleRun[]): string {
  const header = [
    'target',
    'sessions',
    'items',
    'wall s',
    'items/s',
    'of smallest',
    'CPU ms/1k items',
    'peak RSS MB',
    'bytes/session',
  ];
  header.push('history share', 'requests', 'min requests', 'requests/min', 'simulator GC s / longest ms');
  return markdownTable(
    header,
    runs.map((r) => [
      r.target,
      r.sessions,
      r.items,
      r.backfill.seconds.toFixed(1),
      (r.items / r.backfill.seconds).toFixed(0),
      paceOfSmallest(r, runs),
      ((r.backfill.cpuMs / r.items) * 1000).toFixed(0),
      r.backfill.peakRssMb.toFixed(0),
      (r.storedBytes / r.items).toFixed(0),
      // One version per session after a backfill, plus what the idle runs and verify changed (nothing, mostly).
      `${((r.historyBytes / r.storedBytes) * 100).toFixed(1)}%`,
      r.backfill.requests,
      r.minRequests,
      (r.backfill.requests / r.minRequests).toFixed(3),
      `${(r.simulatorPauses.totalMs / 1000).toFixed(1)} / ${r.simulatorPauses.longestMs.toFixed(0)}`,
    ]),
  );
}

export function steadyTable(runs: readonly ScaleRun[]): string {
  const header = [
    'target',
    'sessions',
    'sync requests',
    'sync wall s',
    'peak RSS MB',
    `s/run at ${REAL_RATE} rps`,
    'budget share/h',
    'oldest check per tier',
  ];
  return markdownTable(
    header,
    runs.map((r) => [
      r.target,
      r.sessions,
      r.sync.requests,
      r.sync.seconds.toFixed(1),
      r.sync.peakRssMb.toFixed(0),
      (r.sync.requests / REAL_RATE).toFixed(0),
      `${(((r.sync.requests * RUNS_PER_HOUR) / (REAL_RATE * 3600)) * 100).toFixed(1)}%`,
      r.oldestCheckByTier,
    ]),
  );
}

export function commandsTable(runs: readonly ScaleRun[]): string {
  const header = ['target', 'sessions', 'command', 'wall s', 'peak RSS MB', 'requests'];
  const failed = runs.some((r) => r.commands.some((c) => c.failed !== undefined));
  return markdownTable(
    failed ? [...header, 'failed'] : header,
    runs.flatMap((r) =>
      r.commands.map((c) => [
        r.target,
        r.sessions,
        c.command,
        c.seconds.toFixed(1),
        c.peakRssMb.toFixed(0),
        c.requests,
        ...(failed ? [c.failed ?? ''] : []),
      ]),
    ),
  );
}
