import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../src/simulator/index.js';
import { DEFAULT_TO_EPOCH } from '../src/simulator/simulator-options.js';
import { openSink } from '../src/store/open-sink.js';
import { launch } from './cli-launch.js';
import { localServerCpuMsAfter, readLocalServer } from './local-server-cpu.js';
import { profileTop, type ProfileEntry } from './cpu-profile-top.js';
import { statementCounters, statementsLine, topStatements, type StatementShare } from './server-statements.js';
import { markdownTable } from './markdown-table.js';
import { dropSchema } from './target-backfill.js';

/**
 * `npm run bench -- accounts`: one `ivsync backfill` process for many
 * accounts at once, each with its own token and bucket (the `accounts` of the
 * config file, as a daemon runs them), each backfilling a year. With the
 * simulator's limit lifted the process sets the pace; at 10 rps a token each,
 * the share of its own limit each account keeps busy. The CLI runs in a child
 * process with the usage reporter, so the CPU and the RSS are its own, not the
 * simulator's (which runs here). The profile comes from a second run of the
 * same backfill into a fresh target, with `--cpu-prof`: sampling every
 * millisecond added 8-11% to a 40-account backfill's CPU (every 10 ms, 3-5%),
 * so the figures come from a run without it.
 */

const REPORTER = fileURLToPath(new URL('./usage-reporter.js', import.meta.url));

/** The simulator's limit when lifted: far above what one process asks. */
const LIFTED_RATE = 100_000;

export type AccountsTarget = 'sqlite' | 'postgres';

export interface AccountsOptions {
  accounts: number;
  /** Sessions of each account's year. */
  sessionsPerAccount: number;
  target: AccountsTarget;
  /** Requests per second each token may make; null lifts the limit. */
  rate: number | null;
  /** Latency the simulator adds to each response, ms. */
  latencyMs: number;
  /** Needed for the postgres target: a throw-away schema of it is used. */
  postgresUrl?: string;
  /** Profile entries kept; 0 runs no profiled backfill. @default 8 */
  profileEntries?: number;
}

export interface AccountsRun {
  options: AccountsOptions;
  items: number;
  seconds: number;
  cpuMs: number;
  peakRssMb: number;
  /** Lowest and median over the accounts of (its requests - 1) / its request span / its rate; null when lifted. */
  minShare: number | null;
  medianShare: number | null;
  /**
   * CPU a PostgreSQL server on this machine spent meanwhile (local-server-cpu.ts): its share of the same cores.
   * Null for SQLite, or where the server's processes cannot be read.
   */
  serverCpuMs: number | null;
  /** CPU the simulator spent meanwhile, in this process. */
  simulatorCpuMs: number;
  /** Load average (1 min) when the run started. */
  load: number;
  profile: ProfileEntry[];
  /** Postgres with pg_stat_statements: the statements that took the server's time (server-statements.ts). */
  statements: StatementShare[];
}

const nameOf = (i: number) => `a${String(i + 1).padStart(2, '0')}`;

export async function accountsRun(options: AccountsOptions): Promise<AccountsRun> {
  const measured = await backfillOnce(options, false);
  if (options.profileEntries === 0) return measured;
  const profiled = await backfillOnce(options, true);
  return { ...measured, profile: profiled.profile };
}

/** One backfill of the accounts into a fresh target, with a CPU profile when `profiled`. */
async function backfillOnce(options: AccountsOptions, profiled: boolean): Promise<AccountsRun> {
  const rate = options.rate ?? LIFTED_RATE;
  const names = Array.from({ length: options.accounts }, (_, i) => nameOf(i));
  const tokens = Object.fromEntries(names.map((name) => [`token-${name}`, name]));
  const sim = await startSimulator({
    sessions: options.sessionsPerAccount,
    tokens,
    seed: 42,
    rate,
    burst: rate,
    latencyMs: options.latencyMs,
    otherOwnerSessions: 0,
  });
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-accounts-'));
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  let db: string;
  if (options.target === 'postgres') {
    if (!options.postgresUrl)
      throw new Error('the postgres target needs IVS_BENCH_POSTGRES_URL or IVS_TEST_POSTGRES_URL');
    const url = new URL(options.postgresUrl);
    url.searchParams.set('schema', schema);
    db = url.toString();
  } else db = `sqlite:${join(dir, 'accounts.sqlite')}`;
  try {
    const config = join(dir, 'ivsync.json');
    const accounts = names.map((name) => ({ name, tokenEnv: `IVS_TOKEN_${name.toUpperCase()}`, rate }));
    writeFileSync(config, JSON.stringify({ accounts, crawl: { concurrency: 24 } }));
    const profileDir = join(dir, 'profile');
    if (profiled) mkdirSync(profileDir);
    const usageFile = join(dir, 'usage.json');
    const env: Record<string, string> = {
      IVS_BASE_URL: sim.url,
      IVS_DB: db,
      IVS_CONFIG: config,
      IVS_BENCH_USAGE_FILE: usageFile,
    };
    for (const name of names) env[`IVS_TOKEN_${name.toUpperCase()}`] = `token-${name}`;
    const cli = launch(
      ['backfill', '--from', String(DEFAULT_TO_EPOCH - 366 * 86_400), '--to', String(DEFAULT_TO_EPOCH), '--json'],
      profiled ? { ...env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : env,
      [REPORTER],
    );
    const load = loadavg()[0]!;
    const serverBefore = options.target === 'postgres' ? readLocalServer() : null;
    const statementsBefore = options.target === 'postgres' ? await statementCounters(options.postgresUrl ?? '') : null;
    const simulatorCpu = process.cpuUsage();
    const started = Date.now();
    const stderr: Buffer[] = [];
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(cli.file, cli.args, { env: cli.env, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.on('error', reject);
      child.on('close', (c) => resolve(c ?? -1));
    });
    const seconds = (Date.now() - started) / 1000;
    const simCpu = process.cpuUsage(simulatorCpu);
    const serverAfter = serverBefore === null ? null : await localServerCpuMsAfter(serverBefore);
    const statementsAfter = options.target === 'postgres' ? await statementCounters(options.postgresUrl ?? '') : null;
    if (code !== 0) {
      const log = Buffer.concat(stderr).toString('utf8').slice(-2000);
      throw new Error(`backfill of ${options.accounts} accounts exited ${code}: ${log}`);
    }
    const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { maxRssKb: number; userMs: number; systemMs: number };
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
    let truth = 0;
    for (const name of names)
      for (const resource of ['authentications', 'fingerprints'] as const)
        truth += sim.world.truth(`token-${name}`, resource).length;
    if (items !== truth) throw new Error(`the target holds ${items} items, the service ${truth}`);
    const shares = names
      .map((name) => sim.stats.byOwner[name])
      .map((o) =>
        o === undefined || o.lastAt === o.firstAt ? 0 : (o.requests - 1) / ((o.lastAt - o.firstAt) / 1000) / rate,
      )
      .sort((a, b) => a - b);
    return {
      options,
      items,
      seconds,
      cpuMs: usage.userMs + usage.systemMs,
      peakRssMb: usage.maxRssKb / 1024,
      minShare: options.rate === null ? null : (shares[0] ?? 0),
      medianShare: options.rate === null ? null : (shares[Math.floor(shares.length / 2)] ?? 0),
      serverCpuMs: serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore.cpuMs,
      simulatorCpuMs: (simCpu.user + simCpu.system) / 1000,
      load,
      profile: profiled ? profileTop(profileDir, options.profileEntries ?? 8) : [],
      statements: topStatements(statementsBefore, statementsAfter, options.profileEntries ?? 8),
    };
  } finally {
    await sim.close();
    if (options.target === 'postgres') await dropSchema(options.postgresUrl ?? '', schema);
    rmSync(dir, { recursive: true, force: true });
  }
}

export function accountsTable(runs: readonly AccountsRun[]): string {
  const header = [
    'target',
    'accounts',
    'limit rps each',
    'latency ms',
    'items',
    'wall s',
    'items/s',
    'CPU ms/1k items',
  ];
  header.push(
    'of own limit (min)',
    'of own limit (median)',
    'peak RSS MB',
    'server CPU ms/1k items',
    'simulator CPU ms',
    'load (1 min)',
  );
  const share = (x: number | null) => (x === null ? '-' : x.toFixed(3));
  return markdownTable(
    header,
    runs.map((r) => [
      r.options.target,
      r.options.accounts,
      r.options.rate ?? 'lifted',
      r.options.latencyMs,
      r.items,
      r.seconds.toFixed(1),
      (r.items / r.seconds).toFixed(0),
      ((r.cpuMs / r.items) * 1000).toFixed(0),
      share(r.minShare),
      share(r.medianShare),
      r.peakRssMb.toFixed(0),
      r.serverCpuMs === null ? '-' : ((r.serverCpuMs / r.items) * 1000).toFixed(0),
      r.simulatorCpuMs.toFixed(0),
      r.load.toFixed(2),
    ]),
  );
}

/** The top of each run's profile: what to look at next. */
export function profileLines(runs: readonly AccountsRun[]): string {
  return runs
    .map((r) => {
      const label = `${r.options.target}, ${r.options.accounts} accounts, ${r.options.rate ?? 'lifted'} rps`;
      const line = `${label}: ${r.profile.map((e) => `${e.name} ${(e.share * 100).toFixed(1)}%`).join('; ')}`;
      return r.statements.length === 0
        ? line
        : `${line}\n${label}, the server's statements: ${statementsLine(r.statements)}`;
    })
    .join('\n');
}
