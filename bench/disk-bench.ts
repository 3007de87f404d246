import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../src/simulator/index.js';
import { markdownTable } from './markdown-table.js';
import { launch } from './cli-launch.js';

const MB = 1024 * 1024;

export interface DiskRun {
  target: 'sqlite' | 'duckdb';
  sessions: number;
  /** Largest WAL seen during the run, bytes on disk. */
  peakWal: number;
  /** Largest sum of the target's files (database, WAL, shared memory) seen during the run, bytes on disk. */
  peakTotal: number;
  /** The database file once the backfill has ended (its WAL folded in). */
  finalFile: number;
  samples: number;
  /** Wall time of the backfill, seconds. */
  seconds: number;
}

/** Bytes a file takes on disk (its allocated blocks), 0 when it is gone. */
function onDisk(path: string): number {
  try {
    return statSync(path).blocks * 512;
  } catch {
    return 0;
  }
}

/**
 * A backfill of `sessions` sessions into a fresh `target` file in a child
 * process, while this process samples the sizes of the target's files as
 * often as it can: the peak a disk must have room for, against the file that
 * stays.
 */
export async function diskRun(target: 'sqlite' | 'duckdb', sessions: number): Promise<DiskRun> {
  const sim = await startSimulator({
    sessions,
    seed: 42,
    rate: 1000,
    burst: 1000,
    latencyMs: 5,
    otherOwnerSessions: 0,
  });
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-disk-'));
  const data = join(dir, 'data');
  const config = join(dir, 'ivsync.json');
  writeFileSync(config, JSON.stringify({ crawl: { concurrency: 24 } }));
  const file = join(data, `target.${target}`);
  let peakWal = 0;
  let peakTotal = 0;
  let samples = 0;
  const sample = (): void => {
    let names: string[];
    try {
      names = readdirSync(data);
    } catch {
      return;
    }
    let total = 0;
    for (const name of names) {
      const size = onDisk(join(data, name));
      total += size;
      if (name.endsWith('-wal') || name.endsWith('.wal')) peakWal = Math.max(peakWal, size);
    }
    peakTotal = Math.max(peakTotal, total);
    samples++;
  };
  try {
    const stderr: Buffer[] = [];
    let running = true;
    const started = Date.now();
    const code = new Promise<number>((resolve, reject) => {
      const cli = launch(['backfill', '--from', String(1_790_000_000 - 366 * 86_400), '--to', '1790000000', '--json'], {
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: `${target}:${file}`,
        IVS_CONFIG: config,
        IVS_RATE: '1000',
      });
      const child = spawn(cli.file, cli.args, { env: cli.env, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.on('error', reject);
      child.on('close', (c) => {
        running = false;
        resolve(c ?? -1);
      });
    });
    // Sampling yields to the event loop between reads, so the child's exit is seen.
    while (running) {
      sample();
      await new Promise((r) => setTimeout(r, 2));
    }
    if ((await code) !== 0)
      throw new Error(
        `backfill into ${target} exited ${await code}: ${Buffer.concat(stderr).toString('utf8').slice(-2000)}`,
      );
    const seconds = (Date.now() - started) / 1000;
    sample();
    return { target, sessions, peakWal, peakTotal, finalFile: onDisk(file), samples, seconds };
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function diskTable(runs: readonly DiskRun[]): string {
  const header = [
    'target',
    'sessions',
    'wall s',
    'final file MB',
    'peak WAL MB',
    'peak total MB',
    'peak total / final',
    'samples',
  ];
  const mb = (bytes: number) => (bytes / MB).toFixed(1);
  return markdownTable(
    header,
    runs.map((r) => [
      r.target,
      r.sessions,
      r.seconds.toFixed(1),
      mb(r.finalFile),
      mb(r.peakWal),
      mb(r.peakTotal),
      (r.peakTotal / r.finalFile).toFixed(2),
      r.samples,
    ]),
  );
}
