import { crawlRun, type CrawlRun } from './crawl-bench.js';
import { markdownTable } from './markdown-table.js';
import { ingestTable, ingestTargets } from './ingest-targets.js';
import { targetBackfill, targetBackfillTable, type BackfillTarget, type TargetBackfillRun } from './target-backfill.js';

/**
 * `npm run bench`: prints the figures docs/benchmarks.md quotes. Each backfill runs in
 * a child process against the built-in simulator, so its RSS and CPU are its
 * own. Sections can be picked: `npm run bench -- crawl memory`.
 */
function table(rows: readonly CrawlRun[]): string {
  const header = [
    'run',
    'sessions',
    'latency ms',
    'limit rps',
    'wall s',
    'requests',
    'req/s',
    'ratio',
    'wall ratio',
    'items/s',
    'of limit',
    'pages',
    'min pages',
    'pages/min',
    '429s',
    'refetched',
    'peak RSS MB',
    'CPU ms/1k items',
  ];
  const lines = rows.map((r) => [
    r.label,
    r.sessions,
    Array.isArray(r.latencyMs) ? r.latencyMs.join('-') : r.latencyMs,
    r.rate,
    r.seconds.toFixed(1),
    r.requests,
    r.requestsPerSecond.toFixed(2),
    r.ratio.toFixed(3),
    r.wallRatio.toFixed(3),
    r.itemsPerSecond.toFixed(0),
    r.limitShare.toFixed(3),
    r.pages,
    r.minPages,
    (r.pages / r.minPages).toFixed(3),
    r.count429,
    r.pagesRefetched,
    r.peakRssMb.toFixed(0),
    r.cpuMsPer1000Items.toFixed(0),
  ]);
  return markdownTable(header, lines);
}

const sections = process.argv.slice(2);
const want = (name: string) => sections.length === 0 || sections.includes(name);

if (want('crawl')) {
  const rows: CrawlRun[] = [];
  for (const latency of [150, 1000]) rows.push(await crawlRun(`rate @${latency}ms`, 10_000, latency, 10));
  rows.push(await crawlRun('sparse 60d @150ms', 1_500, 150, 10, { days: 60 }));
  // A backfill from long before the account's first session: three years asked, the last month holding them all.
  rows.push(await crawlRun('30d of 3y @1000ms', 10_000, 1000, 10, { days: 30, backfillDays: 1_100 }));
  // A burst: 8,000 of the 10,000 sessions in three days of the year (an import, a sale), in one weekly window.
  rows.push(await crawlRun('burst 3d @1000ms', 2_000, 1000, 10, { burst: 8_000 }));
  // A slow service: 3 s a page needs some 30 streams in flight to keep 10 requests/s.
  rows.push(await crawlRun('rate @3000ms', 10_000, 3000, 10));
  console.log(
    '\nBackfill at the 10 rps limit (simulator latency fixed per run). req/s and ratio: over the span from the ' +
      'first to the last request;',
  );
  console.log(
    'wall ratio: over the whole command, process start-up, migrations and the last response included. of ' +
      'limit: items/s over',
  );
  console.log(
    'rate × 25 (what the limit allows); pages: search pages served; min pages: sum over resources of ' +
      'ceil(items / 25).\n',
  );
  console.log(table(rows));
}

if (want('memory')) {
  const rows: CrawlRun[] = [];
  // At the product's own rate: the garbage of a faster crawl is collected later and shows as RSS.
  for (const sessions of [10_000, 50_000, 200_000])
    rows.push(await crawlRun(`memory ${sessions / 1000}k`, sessions, 150, 10));
  console.log('\nPeak RSS as the history grows (10 rps limit, 150 ms latency)\n');
  console.log(table(rows));
}

// Only when named (`npm run bench -- startup [--runs 15]`): spawn to exit of short commands, spawn to first request.
if (sections.includes('startup')) {
  const { startupRows, startupTable } = await import('./startup.js');
  const at = process.argv.indexOf('--runs');
  const runs = at > 0 ? Number(process.argv[at + 1]) : 15;
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a whole number of runs, 1 or more');
  console.log(
    '\nStart-up: the package bin as a user starts it, a new process each run (after one to warm the caches)\n',
  );
  console.log(startupTable(await startupRows(runs)));
}

// Only when named (`npm run bench -- soak`): it runs for 30 minutes.
if (sections.includes('soak')) {
  const { soakRun, renderSoak } = await import('./soak.js');
  const at = process.argv.indexOf('--minutes');
  console.log(`\n${renderSoak(await soakRun({ minutes: at > 0 ? Number(process.argv[at + 1]) : 30 }))}`);
}

// Only when named (`npm run bench -- export-scale [--sessions 10000000] [--target duckdb|sqlite|postgres] [--keep]`):
// the export of a target filled by its own database, without the backfill a real history of that size takes (an hour
// at 10M). A Postgres target is a schema of the server IVS_BENCH_POSTGRES_URL or IVS_TEST_POSTGRES_URL names.
if (sections.includes('export-scale')) {
  const { exportScaleRun, exportScaleTable } = await import('./export-scale.js');
  const at = process.argv.indexOf('--sessions');
  const sessions = at > 0 ? Number(process.argv[at + 1]) : 10_000_000;
  const kindAt = process.argv.indexOf('--target');
  const kind = kindAt > 0 ? process.argv[kindAt + 1] : 'duckdb';
  const postgresUrl = process.env.IVS_BENCH_POSTGRES_URL ?? process.env.IVS_TEST_POSTGRES_URL;
  if (kind !== 'duckdb' && kind !== 'sqlite' && kind !== 'postgres') {
    throw new Error(`--target is duckdb, sqlite or postgres, got ${kind}`);
  }
  if (kind === 'postgres' && !postgresUrl) {
    throw new Error('export-scale --target postgres needs IVS_BENCH_POSTGRES_URL or IVS_TEST_POSTGRES_URL');
  }
  const target = kind === 'postgres' ? ({ kind, url: postgresUrl! } as const) : ({ kind } as const);
  const run = await exportScaleRun({ sessions, target, keep: process.argv.includes('--keep') });
  console.log(`\nThe export of ${sessions} sessions, a ${kind} target filled in ${run.fillSeconds.toFixed(0)} s\n`);
  console.log(exportScaleTable([run]));
}

// Only when named (`npm run bench -- scale [--sessions 100000,1000000] [--targets sqlite,duckdb,postgres] [--keep]`):
// a 1M-session run takes minutes per target, a 10M one most of an hour. Postgres is among the default targets when
// IVS_BENCH_POSTGRES_URL or IVS_TEST_POSTGRES_URL names a server. With --keep, each run's directory (its target file)
// is kept and named.
if (sections.includes('scale')) {
  const { scaleRun, backfillTable, steadyTable, commandsTable } = await import('./scale-bench.js');
  const listFlag = (name: string, fallback: string) => {
    const at = process.argv.indexOf(name);
    return (at > 0 ? (process.argv[at + 1] ?? fallback) : fallback).split(',');
  };
  const url = process.env.IVS_BENCH_POSTGRES_URL ?? process.env.IVS_TEST_POSTGRES_URL;
  const runs = [];
  const started = new Date();
  for (const sessions of listFlag('--sessions', '100000,1000000').map(Number)) {
    const targets = listFlag('--targets', url ? 'sqlite,duckdb,postgres' : 'sqlite,duckdb');
    for (const target of targets as Array<'sqlite' | 'duckdb' | 'postgres'>) {
      const run = await scaleRun({
        sessions,
        target,
        keep: process.argv.includes('--keep'),
        ...(url ? { postgresUrl: url } : {}),
      });
      // Each run as it ends: a 10M-session run takes most of an hour per target.
      console.log(JSON.stringify({ scaleRun: run }));
      runs.push(run);
    }
  }
  console.log(
    '\nBackfill at scale (simulator limit 100,000 rps, no latency: the process sets the pace). requests/min: ' +
      'requests over',
  );
  console.log('the sum over resources of ceil(items / 25); bytes/session: the stored file (or Postgres relations)');
  console.log('over the sessions;');
  console.log('history share: what session_history takes of that, after the backfill and the idle runs;');
  console.log("simulator GC: its collector's pauses during the backfill (the simulator runs in this process).\n");
  console.log(backfillTable(runs));
  const { walLines } = await import('./postgres-wal.js');
  for (const line of walLines(runs)) console.log(line);
  const { statementsLine } = await import('./server-statements.js');
  for (const r of runs)
    if (r.statements !== undefined && r.statements.length > 0)
      console.log(`postgres ${r.sessions}: backfill's server statements: ${statementsLine(r.statements)}`);
  console.log(
    '\nOne idle sync after the backfill (10% of sessions not final); at the real limit: s/run = requests / 10 rps,',
  );
  console.log('budget share/h = requests × 12 runs an hour / 36,000 tokens an hour.\n');
  console.log(steadyTable(runs));
  console.log('\nThe daemon (two scheduled idle syncs) and the read commands on the filled target\n');
  console.log(commandsTable(runs));
  const ended = new Date();
  const minutes = (ended.getTime() - started.getTime()) / 60_000;
  console.log(`\nFrom ${started.toISOString()} to ${ended.toISOString()}: ${minutes.toFixed(1)} min.`);
}

// Only when named (`npm run bench -- fleet [--daemons 3] [--accounts 120] [--ticks 12] [--period 15]`):
// daemons sharing one Postgres, one of them killed; needs IVS_BENCH_POSTGRES_URL or IVS_TEST_POSTGRES_URL.
if (sections.includes('fleet')) {
  const { fleetRun, fleetTable, fleetOptionsFrom } = await import('./fleet.js');
  const options = fleetOptionsFrom(process.argv.slice(2));
  console.log(
    `\nFleet: daemons sharing one Postgres target, one SIGKILLed after half the ticks (${new Date().toISOString()})\n`,
  );
  console.log(fleetTable(await fleetRun(options)));
}

// Only when named (`npm run bench -- accounts [--accounts 1,10,40] [--rates lifted,10] [--targets sqlite,postgres]
// [--sessions-per-account 2500] [--repeat 1]`): one process backfilling many accounts, each with its own token and
// bucket. `--repeat N` runs each row N times in a row (two runs of one build differed by up to 15% on a 2-core VM):
// a row of the table each, so the spread shows.
if (sections.includes('accounts')) {
  const { accountsRun, accountsTable, profileLines } = await import('./accounts.js');
  const listFlag = (name: string, fallback: string) => {
    const at = process.argv.indexOf(name);
    return (at > 0 ? (process.argv[at + 1] ?? fallback) : fallback).split(',');
  };
  const url = process.env.IVS_BENCH_POSTGRES_URL ?? process.env.IVS_TEST_POSTGRES_URL;
  const sessionsPerAccount = Number(listFlag('--sessions-per-account', '2500')[0]);
  const repeat = Number(listFlag('--repeat', '1')[0]);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error('--repeat takes a whole number of runs, 1 or more');
  const targets = listFlag('--targets', url ? 'sqlite,postgres' : 'sqlite') as Array<'sqlite' | 'postgres'>;
  const accountCounts = listFlag('--accounts', '1,10,40').flatMap((n) => Array<number>(repeat).fill(Number(n)));
  const runs = [];
  for (const target of targets) {
    for (const rate of listFlag('--rates', 'lifted,10').map((r) => (r === 'lifted' ? null : Number(r)))) {
      for (const accounts of accountCounts) {
        // At a real limit, the latency of a real service; lifted, none, so that the process sets the pace.
        const latencyMs = rate === null ? 0 : 150;
        const run = await accountsRun({
          accounts,
          sessionsPerAccount,
          target,
          rate,
          latencyMs,
          ...(url ? { postgresUrl: url } : {}),
        });
        runs.push(run);
        // Each run as it ends (a Postgres run with 40 accounts takes minutes): the table follows at the end.
        console.error(JSON.stringify({ accountsRun: { ...run, profile: run.profile.slice(0, 3) } }));
      }
    }
  }
  console.log(
    `\nOne backfill process, many accounts each with its own token and bucket, a year of ${sessionsPerAccount} ` +
      `sessions each.`,
  );
  console.log(
    'CPU, peak RSS and profile: the CLI process alone (the simulator runs in the bench process: its CPU is apart);',
  );
  console.log(
    'the profile from a second run of the same backfill into a fresh target; the figures from the run without it.',
  );
  console.log(
    'of own limit: per account, (its requests - 1) over the span from its first to its last request, over its rate.',
  );
  console.log(
    'server CPU: a PostgreSQL on this machine, all its processes, the ended backends with them (from /proc).\n',
  );
  console.log(accountsTable(runs));
  console.log('\nTop of each CPU profile (self time of the main thread, idle left out), and of a Postgres server its');
  console.log("statements' time (pg_stat_statements, where the server loads it):\n");
  console.log(profileLines(runs));
}

// Postgres figures need a server: IVS_BENCH_POSTGRES_URL (or IVS_TEST_POSTGRES_URL);
// without one, the postgres rows are left out.
const postgresUrl = process.env.IVS_BENCH_POSTGRES_URL ?? process.env.IVS_TEST_POSTGRES_URL;

if (want('ingest')) {
  const rows = await ingestTargets({ items: 100_000, runs: 3, ...(postgresUrl ? { postgresUrl } : {}) });
  console.log(
    '\nOffline ingest per target: normalize + write of pre-fetched v1.4 pages (25 items, 3 text fields + 1 ' +
      'photo each), median of 3 fresh targets\n',
  );
  console.log(ingestTable(rows));
  const { duckdbCeiling, ceilingLine } = await import('./duckdb-ceiling.js');
  console.log(`\n${ceilingLine(await duckdbCeiling({ items: 100_000, runs: 3 }))}`);
}

if (want('targets')) {
  const runs: TargetBackfillRun[] = [];
  const targets: BackfillTarget[] = postgresUrl ? ['sqlite', 'duckdb', 'postgres'] : ['sqlite', 'duckdb'];
  for (const target of targets)
    runs.push(
      await targetBackfill(target, { sessions: 20_000, rate: 1000, runs: 3, ...(postgresUrl ? { postgresUrl } : {}) }),
    );
  console.log('\nThe same backfill per target (20k sessions, 1000 rps limit, 5 ms latency), wall time of 3 runs\n');
  console.log(targetBackfillTable(runs));
}

if (want('disk')) {
  const { diskRun, diskTable } = await import('./disk-bench.js');
  const runs: Awaited<ReturnType<typeof diskRun>>[] = [];
  for (const sessions of [5_000, 20_000])
    for (const target of ['sqlite', 'duckdb'] as const) runs.push(await diskRun(target, sessions));
  console.log(
    "\nDisk during a backfill (5k and 20k sessions, 1000 rps limit): peak WAL and peak total of the target's " +
      'files (allocated blocks, sampled every few ms) against the final file\n',
  );
  console.log(diskTable(runs));
}

if (want('webhooks')) {
  const { runWebhookBench, webhookTable } = await import('./webhook-bench.js');
  console.log(
    '\nWebhook receiver: signed single-item deliveries into SQLite, and simulator mutation to committed row\n',
  );
  console.log(webhookTable(await runWebhookBench()));
}

if (want('slow')) {
  const { runSlowClientsBench, slowClientsTable } = await import('./slow-clients-bench.js');
  const figures = [await runSlowClientsBench('defaults (30 s, 256)', {}, 3_000, 200)];
  console.log(
    '\nWebhook receiver under 3,000 slow clients (headers, then a body byte a second), 200 signed deliveries ' +
      'meanwhile\n',
  );
  console.log(slowClientsTable(figures));
}

if (want('refresh')) {
  const { idleRefresh, idleRefreshTable } = await import('./idle-refresh.js');
  const rows = [];
  for (const sessions of [3_000, 30_000]) {
    rows.push(
      await idleRefresh(sessions, 'every non-final session, every run'),
      await idleRefresh(sessions, 'default budget (a tenth of the token)'),
    );
  }
  console.log(
    '\nIdle syncs five minutes apart over a year of history, 10% of sessions not final and none changing ' +
      '(requests per run)\n',
  );
  console.log(idleRefreshTable(rows));
}

// Only when named: a day of scheduled runs at 100k takes minutes, at 1M most of an hour.
if (sections.includes('steady')) {
  const { steadyState, steadyStateTable } = await import('./steady-state.js');
  const flag = (name: string) => sections[sections.indexOf(name) + 1];
  const sizes = (flag('--sessions') ?? '100000').split(',').map(Number);
  const runs = Number(flag('--runs') ?? 288);
  const rows = [];
  for (const sessions of sizes) rows.push(await steadyState(sessions, runs));
  console.log(
    `\nScheduled syncs five minutes apart at the real limit's refresh budget: new sessions arriving, one young ` +
      `session changed before each run\n`,
  );
  console.log(steadyStateTable(rows));
}
