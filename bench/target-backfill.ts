import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startSimulator } from '../src/simulator/index.js';
import { openSink } from '../src/store/open-sink.js';
import { markdownTable } from './markdown-table.js';
import { launch } from './cli-launch.js';

export type BackfillTarget = 'sqlite' | 'duckdb' | 'postgres';

export interface TargetBackfillRun {
  target: BackfillTarget;
  sessions: number;
  rate: number;
  /** Wall time of each run, seconds. */
  seconds: number[];
  items: number;
}

/**
 * The same backfill of the simulator's whole history (crawl-bench.ts's run)
 * into each target, in a child process, `runs` times on a fresh target; the
 * rate limit is high and the latency low, so the store is what differs.
 * Postgres goes to a throw-away schema of `postgresUrl`.
 */
export async function targetBackfill(
  target: BackfillTarget,
  options: { sessions: number; rate: number; runs: number; postgresUrl?: string },
): Promise<TargetBackfillRun> {
  const sim = await startSimulator({
    sessions: options.sessions,
    seed: 42,
    rate: options.rate,
    burst: options.rate,
    latencyMs: 5,
    otherOwnerSessions: 0,
  });
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-bench-'));
  const seconds: number[] = [];
  let items = 0;
  try {
    const config = join(dir, 'ivsync.json');
    writeFileSync(config, JSON.stringify({ crawl: { concurrency: 24 } }));
    for (let run = 0; run < options.runs; run++) {
      const schema = `bench_${randomBytes(4).toString('hex')}`;
      let db: string;
      if (target === 'postgres') {
        const url = new URL(options.postgresUrl ?? '');
        url.searchParams.set('schema', schema);
        db = url.toString();
      } else db = `${target}:${join(dir, `bench-${run}.${target}`)}`;
      try {
        const stderr: Buffer[] = [];
        const started = Date.now();
        const code = await new Promise<number>((resolve, reject) => {
          const cli = launch(
            ['backfill', '--from', String(1_790_000_000 - 366 * 86_400), '--to', '1790000000', '--json'],
            {
              IVS_BASE_URL: sim.url,
              IVS_API_TOKEN: 'test-token',
              IVS_DB: db,
              IVS_CONFIG: config,
              IVS_RATE: String(options.rate),
            },
          );
          const child = spawn(cli.file, cli.args, { env: cli.env, stdio: ['ignore', 'ignore', 'pipe'] });
          // The run's log lines would interleave with the tables; they are shown only when it fails.
          child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
          child.on('error', reject);
          child.on('close', (c) => resolve(c ?? -1));
        });
        seconds.push((Date.now() - started) / 1000);
        if (code !== 0)
          throw new Error(
            `backfill into ${target} exited ${code}: ${Buffer.concat(stderr).toString('utf8').slice(-2000)}`,
          );
        const sink = await openSink(db);
        try {
          const [row] = await sink.query(
            'SELECT (SELECT COUNT(*) FROM authentications) + (SELECT COUNT(*) FROM fingerprints) AS n',
          );
          items = Number(row?.n ?? 0);
        } finally {
          await sink.close();
        }
      } finally {
        if (target === 'postgres') await dropSchema(options.postgresUrl ?? '', schema);
      }
    }
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { target, sessions: options.sessions, rate: options.rate, seconds, items };
}

/** Drops a throw-away benchmark schema. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function targetBackfillTable(runs: readonly TargetBackfillRun[]): string {
  const header = ['target', 'sessions', 'limit rps', 'runs', 'wall s (median)', 'wall s (all)', 'items', 'items/s'];
  const lines = runs.map((r) => {
    const wall = median(r.seconds);
    return [
      r.target,
      String(r.sessions),
      String(r.rate),
      String(r.seconds.length),
      wall.toFixed(1),
      r.seconds.map((s) => s.toFixed(1)).join(' '),
      String(r.items),
      (r.items / wall).toFixed(0),
    ];
  });
  return markdownTable(header, lines);
}
