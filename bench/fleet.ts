import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startSimulator } from '../src/simulator/index.js';
import { launch } from './cli-launch.js';
import { fleetFigures, type FleetFigures, type FleetRun } from './fleet-figures.js';
import { markdownTable } from './markdown-table.js';
import { isEntryPoint, numberFlag } from './script-args.js';

/**
 * Fleet: several daemons (child processes of the built CLI, each seeing
 * itself on a host of its own) share one Postgres target and many accounts,
 * each with its own token and bucket at the simulator, on a schedule of a
 * few seconds standing in for an hour of five-minute ticks. Halfway through,
 * one daemon is killed with SIGKILL mid-run. `npm run bench -- fleet
 * [--daemons 3] [--accounts 120] [--ticks 12] [--period 15]`.
 */
export interface FleetOptions {
  /** Server URL; the bench creates a database of its own there and drops it after. */
  postgresUrl: string;
  /** @default 3 */
  daemons?: number;
  /** @default 120 */
  accounts?: number;
  /** Scheduled ticks counted (the kill comes after half of them). @default 12 */
  ticks?: number;
  /** Seconds between ticks; divides 60. @default 15 */
  periodSeconds?: number;
  /** Sessions of each account's history. @default 40 */
  sessions?: number;
  /** The daemons' --lease-ttl. @default 60 (the product's default) */
  leaseTtlSeconds?: number;
  /** Requests per second per token, at the simulator and in the config. @default 10 */
  rate?: number;
  log?: (line: string) => void;
}

export interface FleetReport {
  options: Required<Omit<FleetOptions, 'log' | 'postgresUrl'>>;
  initialSyncSeconds: number;
  figures: FleetFigures;
  killedAfterSeconds: number;
  connections: {
    peak: number;
    mean: number;
    peakWaitingOnLock: number;
    meanWaitingOnLock: number;
    advisoryShare: number;
  };
  /** Per sync run of the daemons: transactions committed in the database, row writes over all tables, daemon CPU. */
  perRun: { commits: number; rowWrites: number; cpuMs: number; cores: number };
  leaseWrites: { perSecond: number; allTablesPerSecond: number; deadTuples: number; seconds: number };
  rows: { truth: number; stored: number; lost: number; extra: number; wrongAccount: number };
  changes: number;
  simulator429: number;
  survivorsExit: Array<number | null>;
  errorLines: number[];
  load: [number, number];
}

type Stats = { writes: number; all: number; dead: number; commits: number };

/** CPU seconds (user + system) a live process has used, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, limitMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`fleet: gave up waiting for ${what}`);
    await delay(250);
  }
}

export async function fleetRun(options: FleetOptions): Promise<FleetReport> {
  const o = {
    daemons: options.daemons ?? 3,
    accounts: options.accounts ?? 120,
    ticks: options.ticks ?? 12,
    periodSeconds: options.periodSeconds ?? 15,
    sessions: options.sessions ?? 40,
    leaseTtlSeconds: options.leaseTtlSeconds ?? 60,
    rate: options.rate ?? 10,
  };
  if (60 % o.periodSeconds !== 0) throw new Error(`--period must divide 60, got ${o.periodSeconds}`);
  const log = options.log ?? ((line: string) => console.error(line));
  const loadStart = loadavg()[0]!;
  const periodMs = o.periodSeconds * 1000;
  const names = Array.from({ length: o.accounts }, (_, i) => `a${String(i).padStart(3, '0')}`);
  const tokenOf = (name: string) => `token-${name}`;

  const database = `ivs_fleet_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: options.postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(options.postgresUrl);
  url.pathname = `/${database}`;
  const monitor = new pg.Client({ connectionString: url.toString() });
  await monitor.connect();
  url.searchParams.set('schema', 'ivsync');

  const now = Math.floor(Date.now() / 1000);
  const from = now - 7 * 86_400;
  const sim = await startSimulator({
    sessions: o.sessions,
    seed: 22,
    rate: o.rate,
    latencyMs: [10, 40],
    from,
    to: now - 60,
    tokens: Object.fromEntries(names.map((n) => [tokenOf(n), `owner-${n}`])),
  });
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-fleet-'));
  const config = join(dir, 'ivsync.json');
  writeFileSync(
    config,
    JSON.stringify({
      logLevel: 'warn',
      accounts: names.map((name) => ({ name, tokenEnv: `TOKEN_${name.toUpperCase()}` })),
    }),
  );
  const env: Record<string, string | undefined> = {
    ...process.env,
    IVS_BASE_URL: sim.url,
    IVS_DB: url.toString(),
    IVS_CONFIG: config,
    IVS_RATE: String(o.rate),
    ...Object.fromEntries(names.map((n) => [`TOKEN_${n.toUpperCase()}`, tokenOf(n)])),
  };
  const children: ChildProcess[] = [];
  try {
    // The history first, in one process, so the daemons start on incremental ticks.
    const syncStart = Date.now();
    const first = launch(['sync', '--since', String(from)], env);
    const sync = spawn(first.file, first.args, { env: first.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let syncErr = '';
    sync.stderr.on('data', (c: Buffer) => (syncErr = (syncErr + c.toString()).slice(-2000)));
    const syncCode = await new Promise<number | null>((resolve) => sync.on('close', resolve));
    if (syncCode !== 0) throw new Error(`fleet: the first sync exited ${syncCode}: ${syncErr}`);
    const initialSyncSeconds = (Date.now() - syncStart) / 1000;
    log(`fleet: first sync of ${o.accounts} accounts took ${initialSyncSeconds.toFixed(1)} s`);

    const leaseStats = async (): Promise<Stats> => {
      const { rows } = await monitor.query<{ relname: string; w: string; dead: string }>(
        'SELECT relname, n_tup_ins + n_tup_upd + n_tup_del AS w, n_dead_tup AS dead FROM pg_stat_user_tables ' +
          "WHERE schemaname = 'ivsync'",
      );
      const lease = rows.find((r) => r.relname === 'sync_leases');
      const db = await monitor.query<{ n: string }>(
        'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1',
        [database],
      );
      return {
        writes: Number(lease?.w ?? 0),
        all: rows.reduce((n, r) => n + Number(r.w), 0),
        dead: Number(lease?.dead ?? 0),
        commits: Number(db.rows[0]!.n),
      };
    };
    const statsStart = await leaseStats();
    const startedAt = Date.now();

    const daemonArgs = [
      'daemon',
      '--schedule',
      `*/${o.periodSeconds} * * * * *`,
      '--since',
      String(from),
      '--lease-ttl',
      String(o.leaseTtlSeconds),
    ];
    const preload = fileURLToPath(new URL('./fleet-host.js', import.meta.url));
    const errorLines = Array.from({ length: o.daemons }, () => 0);
    const tails = Array.from({ length: o.daemons }, () => '');
    const exits: Array<Promise<number | null>> = [];
    for (let d = 0; d < o.daemons; d++) {
      const cli = launch(daemonArgs, { ...env, IVS_BENCH_HOSTNAME: `fleet-${d}` }, [preload]);
      const child = spawn(cli.file, cli.args, { env: cli.env, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.on('data', (c: Buffer) => {
        const text = c.toString();
        errorLines[d]! += (text.match(/"level":50/g) ?? []).length;
        tails[d] = (tails[d] + text).slice(-3000);
      });
      exits.push(new Promise((resolve) => child.on('close', resolve)));
      children.push(child);
    }

    // Postgres connections of the fleet's database, and how many wait on a lock.
    const samples: Array<{ total: number; waiting: number; advisory: number }> = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await monitor.query<{ total: string; waiting: string; advisory: string }>(
          "SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE wait_event_type = 'Lock') AS waiting, " +
            "COUNT(*) FILTER (WHERE wait_event = 'advisory') AS advisory FROM pg_stat_activity WHERE datname = $1 " +
            'AND pid <> pg_backend_pid()',
          [database],
        );
        samples.push({
          total: Number(rows[0]!.total),
          waiting: Number(rows[0]!.waiting),
          advisory: Number(rows[0]!.advisory),
        });
        await delay(500);
      }
    })();

    // A stream of new sessions over all accounts, both resources.
    let changes = 0;
    const changer = setInterval(() => {
      const name = names[Math.floor(Math.random() * names.length)]!;
      sim.world.addSession({
        owner: `owner-${name}`,
        resource: Math.random() < 0.7 ? 'authentications' : 'fingerprints',
      });
      changes++;
    }, 250);

    // Counted from the first tick after every daemon has registered (a start takes seconds on a loaded host).
    await waitFor('every daemon registered', 120_000, async () => {
      const { rows } = await monitor.query<{ n: string }>(
        "SELECT COUNT(*) AS n FROM ivsync.sync_leases WHERE name LIKE 'daemon:%'",
      );
      return Number(rows[0]!.n) >= o.daemons ? true : undefined;
    });
    const firstTick = Math.floor(Date.now() / periodMs) + 1;
    const lastTick = firstTick + o.ticks - 1;
    const killTick = firstTick + Math.ceil(o.ticks / 2);
    const runningOf = async (d: number) =>
      (
        await monitor.query(`SELECT 1 FROM ivsync.sync_runs WHERE status = 'running' AND holder LIKE $1 LIMIT 1`, [
          `fleet-${d}:%`,
        ])
      ).rows.length > 0;
    await delay(Math.max(0, killTick * periodMs - Date.now()));
    // Mid-run: while the doomed daemon has a sync in flight (a tick's runs last a moment, not the whole period).
    await waitFor('a run of daemon 0 in flight', periodMs * 3, async () =>
      (await runningOf(0)) ? true : undefined,
    ).catch(() => undefined);
    const cpu = children.map((c) => cpuSeconds(c.pid));
    children[0]!.kill('SIGKILL');
    const killedAtMs = Date.now();
    log(`fleet: SIGKILL daemon 0 ${((killedAtMs - startedAt) / 1000).toFixed(1)} s after the start`);

    await delay(Math.max(0, (lastTick + 1) * periodMs - Date.now()));
    clearInterval(changer);
    const stoppedChanges = Date.now();
    // Every account synced once more after the last change, by whichever daemon.
    await waitFor(
      'a sync of every account after the last change',
      o.leaseTtlSeconds * 1000 + 6 * periodMs,
      async () => {
        const { rows } = await monitor.query<{ n: string }>(
          "SELECT COUNT(DISTINCT account) AS n FROM ivsync.sync_runs WHERE status = 'succeeded' " +
            "AND command = 'sync' AND started_at > $1",
          [new Date(stoppedChanges + 1000).toISOString()],
        );
        return Number(rows[0]!.n) >= o.accounts ? true : undefined;
      },
    );
    for (let d = 1; d < o.daemons; d++) cpu[d] = cpuSeconds(children[d]!.pid);
    for (const child of children.slice(1)) child.kill('SIGTERM');
    const survivorsExit = await Promise.all(exits.slice(1));
    for (let d = 1; d < o.daemons; d++)
      if (survivorsExit[d - 1] !== 0) log(`fleet: daemon ${d} exited ${survivorsExit[d - 1]}:\n${tails[d]}`);
    sampling = false;
    await sampler;
    const statsEnd = await leaseStats();
    const seconds = (Date.now() - startedAt) / 1000;

    const { rows: runRows } = await monitor.query<{
      account: string;
      holder: string;
      started_at: Date;
      finished_at: Date | null;
      status: string;
      requests: number;
    }>(
      'SELECT account, holder, started_at, finished_at, status, requests FROM ivsync.sync_runs ' +
        "WHERE command = 'sync' AND holder LIKE 'fleet-%'",
    );
    const runs: FleetRun[] = runRows.map((r) => ({
      account: r.account,
      daemon: Number(/^fleet-(\d+):/.exec(r.holder)![1]),
      startedMs: r.started_at.getTime(),
      finishedMs: r.finished_at?.getTime() ?? null,
      status: r.status,
      requests: Number(r.requests),
    }));
    const figures = fleetFigures({
      runs,
      accounts: names,
      daemons: o.daemons,
      periodMs,
      killed: { daemon: 0, atMs: killedAtMs },
      firstTick,
      lastTick,
      budgetPerTick: o.rate * o.periodSeconds,
    });
    for (const d of figures.doubles) log(`fleet: ${d.account} ran twice in tick ${d.tick}: ${JSON.stringify(d.runs)}`);

    // Rows against the simulator's truth: every session of every account once, under its own account.
    const { rows: storedRows } = await monitor.query<{ account: string; service_id: string }>(
      'SELECT account, service_id FROM ivsync.authentications WHERE missing_since IS NULL ' +
        'UNION ALL SELECT account, service_id FROM ivsync.fingerprints WHERE missing_since IS NULL',
    );
    const stored = new Map(storedRows.map((r) => [r.service_id, r.account]));
    let truth = 0;
    let lost = 0;
    let wrongAccount = 0;
    const truthIds = new Set<string>();
    for (const name of names) {
      for (const resource of ['authentications', 'fingerprints'] as const) {
        for (const item of sim.world.truth(tokenOf(name), resource) as Array<{ service_id: string }>) {
          truth++;
          truthIds.add(item.service_id);
          const account = stored.get(item.service_id);
          if (account === undefined) lost++;
          else if (account !== name) wrongAccount++;
        }
      }
    }
    const extra = [...stored.keys()].filter((id) => !truthIds.has(id)).length;
    return {
      options: o,
      initialSyncSeconds,
      figures,
      killedAfterSeconds: (killedAtMs - startedAt) / 1000,
      connections: {
        peak: Math.max(0, ...samples.map((s) => s.total)),
        mean: samples.reduce((n, s) => n + s.total, 0) / Math.max(1, samples.length),
        peakWaitingOnLock: Math.max(0, ...samples.map((s) => s.waiting)),
        meanWaitingOnLock: samples.reduce((n, s) => n + s.waiting, 0) / Math.max(1, samples.length),
        advisoryShare:
          samples.reduce((n, s) => n + s.advisory, 0) /
          Math.max(
            1,
            samples.reduce((n, s) => n + s.waiting, 0),
          ),
      },
      perRun: {
        commits: (statsEnd.commits - statsStart.commits) / Math.max(1, runs.length),
        rowWrites: (statsEnd.all - statsStart.all) / Math.max(1, runs.length),
        cpuMs: (cpu.reduce((n, c) => n + c, 0) * 1000) / Math.max(1, runs.length),
        cores: cpu.reduce((n, c) => n + c, 0) / seconds,
      },
      leaseWrites: {
        perSecond: (statsEnd.writes - statsStart.writes) / seconds,
        allTablesPerSecond: (statsEnd.all - statsStart.all) / seconds,
        deadTuples: statsEnd.dead,
        seconds,
      },
      rows: { truth, stored: stored.size, lost, extra, wrongAccount },
      changes,
      simulator429: sim.stats.count429,
      survivorsExit,
      errorLines,
      load: [loadStart, loadavg()[0]!],
    };
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await sim.close();
    await monitor.end();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

const triple = (t: ReadonlyArray<number | string>) => t.join(' / ');

export function fleetTable(r: FleetReport): string {
  const f = r.figures;
  const o = r.options;
  const counts = (c: FleetFigures['before']) =>
    `${c.once} once, ${c.none} none, ${c.twiceOrMore} twice or more (of ${c.accountTicks} over ${c.ticks} ticks)`;
  const rows: Array<[string, string]> = [
    [
      'daemons / accounts / ticks / period',
      `${o.daemons} / ${o.accounts} / ${o.ticks} / ${o.periodSeconds} s` +
        ` (lease ttl ${o.leaseTtlSeconds} s, ${o.rate} rps per token)`,
    ],
    [
      'first sync of the history (one process)',
      `${r.initialSyncSeconds.toFixed(1)} s, ${o.sessions} sessions per account`,
    ],
    ['runs per account per tick, before the kill', counts(f.before)],
    ['runs per account per tick, after the kill', counts(f.after)],
    ['runs per live daemon per tick (least / median / most), before', triple(f.before.perDaemon)],
    ['the same after the kill (survivors)', triple(f.after.perDaemon)],
    [
      "tick busy: from the tick to its daemon's last run ending (median / most)",
      `${f.busySeconds[0].toFixed(1)} s / ${f.busySeconds[1].toFixed(1)} s`,
    ],
    [
      "runs' start after their tick (median / most)",
      `${f.startSeconds[0].toFixed(1)} s / ${f.startSeconds[1].toFixed(1)} s (grace ${o.periodSeconds / 4} s)`,
    ],
    [
      'daemon 0 SIGKILLed',
      `${r.killedAfterSeconds.toFixed(1)} s after the start;` +
        ` ${f.orphans} accounts in its last whole tick, ${f.inFlight} runs in flight`,
    ],
    [
      'kill to their first sync by another daemon (median / most)',
      `${triple(f.takeoverSeconds.map((x) => x.toFixed(1)))} s; ${f.neverTakenOver} never`,
    ],
    [
      'kill to the first sync of the in-flight ones (most)',
      `${f.inFlightTakeoverSeconds.toFixed(1)} s (the account lease goes stale after the ttl)`,
    ],
    [
      'requests per account per tick (median / most) and budget',
      `${triple(f.requestsPerAccountTick)} of ${o.rate * o.periodSeconds}` +
        ` (most: ${(f.budgetShareMax * 100).toFixed(1)}%)`,
    ],
    ['runs by status', JSON.stringify(f.statuses)],
    ['Postgres connections (peak / mean)', `${r.connections.peak} / ${r.connections.mean.toFixed(1)}`],
    [
      'of them waiting on a lock (peak / mean; share on advisory locks)',
      `${r.connections.peakWaitingOnLock} / ${r.connections.meanWaitingOnLock.toFixed(2)};` +
        ` ${(r.connections.advisoryShare * 100).toFixed(0)}%`,
    ],
    [
      'per sync run: transactions committed / row writes / daemon CPU',
      `${r.perRun.commits.toFixed(1)} / ${r.perRun.rowWrites.toFixed(1)} / ${r.perRun.cpuMs.toFixed(0)} ms`,
    ],
    ["daemons' CPU over the run, in cores (start-up included)", r.perRun.cores.toFixed(2)],
    [
      'sync_leases row writes per second',
      `${r.leaseWrites.perSecond.toFixed(1)} (all tables ${r.leaseWrites.allTablesPerSecond.toFixed(1)});` +
        ` dead tuples at the end ${r.leaseWrites.deadTuples}`,
    ],
    [
      'sessions: truth / stored / lost / extra / wrong account',
      `${r.rows.truth} / ${r.rows.stored} / ${r.rows.lost} / ${r.rows.extra} / ${r.rows.wrongAccount}` +
        ` (${r.changes} added during the run)`,
    ],
    ['429s at the simulator', String(r.simulator429)],
    ['error log lines per daemon; survivors exit codes', `${r.errorLines.join(', ')}; ${r.survivorsExit.join(', ')}`],
    ['load average (1 min) at start / end', `${r.load[0].toFixed(2)} / ${r.load[1].toFixed(2)}`],
  ];
  return markdownTable(['figure', 'value'], rows);
}

/** The bench's options from the command line (`--daemons 2 --accounts 12 ...`); the server from the environment. */
export function fleetOptionsFrom(args: readonly string[]): FleetOptions {
  const postgresUrl = process.env.IVS_BENCH_POSTGRES_URL ?? process.env.IVS_TEST_POSTGRES_URL;
  if (!postgresUrl) throw new Error('fleet needs IVS_BENCH_POSTGRES_URL or IVS_TEST_POSTGRES_URL');
  const flags = {
    daemons: '--daemons',
    accounts: '--accounts',
    ticks: '--ticks',
    periodSeconds: '--period',
    sessions: '--sessions',
    leaseTtlSeconds: '--lease-ttl',
  } as const;
  const options: FleetOptions = { postgresUrl };
  for (const [key, flag] of Object.entries(flags) as Array<[keyof typeof flags, string]>) {
    const value = numberFlag(args, flag);
    if (value !== undefined) options[key] = value;
  }
  return options;
}

if (isEntryPoint(import.meta.url)) console.log(fleetTable(await fleetRun(fleetOptionsFrom(process.argv.slice(2)))));
