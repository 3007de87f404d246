import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../src/simulator/index.js';
import { DEFAULT_TO_EPOCH } from '../src/simulator/simulator-options.js';
import { launch } from './cli-launch.js';
import { markdownTable } from './markdown-table.js';

/**
 * `npm run bench -- startup [--runs 15]`: what a command costs before it does
 * its work, as a user starts it (the package's bin, a new process each time).
 * `--version` and `status` (of a small SQLite target) from spawn to exit; a
 * backfill from spawn to the service's first request (the start-up every
 * crawl's wall time includes, at any latency). Beside them `node -e 0`: the
 * same machine's floor, so that figures of two machines can be compared.
 */
export interface StartupRow {
  label: string;
  runs: number;
  /** Milliseconds, each run's. */
  ms: number[];
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Spawns `file args` and resolves with its wall time; rejects on a non-zero exit. */
function timed(file: string, args: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${file} ${args.join(' ')} exited ${code}`)),
    );
  });
}

const DAY = 86_400;

export async function startupRows(runs: number): Promise<StartupRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-startup-'));
  const sim = await startSimulator({
    sessions: 100,
    seed: 42,
    otherOwnerSessions: 0,
    from: DEFAULT_TO_EPOCH - 30 * DAY,
  });
  const range = ['--from', String(DEFAULT_TO_EPOCH - 31 * DAY), '--to', String(DEFAULT_TO_EPOCH)];
  const env = { ...process.env, IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token' };
  const rows: StartupRow[] = [];
  const measure = async (label: string, once: () => Promise<number>) => {
    await once(); // the file system's caches warm, as for a command run again
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) ms.push(await once());
    rows.push({ label, runs, ms });
  };
  try {
    const target = `sqlite:${join(dir, 'status.sqlite')}`;
    const fill = launch(['backfill', ...range], { ...env, IVS_DB: target });
    await timed(fill.file, fill.args, fill.env);

    await measure('node -e 0', () => timed(process.execPath, ['-e', '0'], env));
    const version = launch(['--version'], env);
    await measure('ivsync --version', () => timed(version.file, version.args, version.env));
    for (const args of [['status'], ['status', '--json']]) {
      const status = launch(args, { ...env, IVS_DB: target });
      await measure(`ivsync ${args.join(' ')} (100 sessions, SQLite)`, () =>
        timed(status.file, status.args, status.env),
      );
    }
    let n = 0;
    await measure('ivsync backfill: spawn to first request (new SQLite target)', async () => {
      // A simulator of its own each run: its first request's time, on this process's clock (Date.now).
      const own = await startSimulator({
        sessions: 100,
        seed: 42,
        otherOwnerSessions: 0,
        from: DEFAULT_TO_EPOCH - 30 * DAY,
      });
      try {
        const cli = launch(['backfill', ...range], {
          ...env,
          IVS_BASE_URL: own.url,
          IVS_DB: `sqlite:${join(dir, `first-${n++}.sqlite`)}`,
        });
        const started = Date.now();
        await timed(cli.file, cli.args, cli.env);
        const first = own.stats.firstRequestAt;
        if (first === null) throw new Error('the backfill sent no request');
        return first - started;
      } finally {
        await own.close();
      }
    });
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export function startupTable(rows: readonly StartupRow[]): string {
  return markdownTable(
    ['command', 'runs', 'median ms', 'min ms', 'max ms'],
    rows.map((r) => [
      r.label,
      r.runs,
      median(r.ms).toFixed(0),
      Math.min(...r.ms).toFixed(0),
      Math.max(...r.ms).toFixed(0),
    ]),
  );
}
