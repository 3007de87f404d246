import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../src/simulator/index.js';
import { cliInProcess as cli } from './in-process-cli.js';
import { markdownTable } from './markdown-table.js';
import { isEntryPoint, numberFlag } from './script-args.js';

const DAY = 86_400;
const RUN_SECONDS = 300;

export interface IdleRefreshRun {
  sessions: number;
  policy: 'default budget (a tenth of the token)' | 'every non-final session, every run';
  nonFinal: number;
  /** Requests of each idle run after the first sync. */
  requests: number[];
}

/**
 * Idle syncs five minutes apart (the default schedule) on an injected clock,
 * over a year of history whose non-final sessions never change. The bucket is
 * lifted so the bench is quick; the budget's share is scaled so that it buys
 * what the default buys at the real limit (a tenth of 10 requests/s × 300 s,
 * less what the pass spends). "Every non-final session, every run" is an
 * unlimited budget.
 */
export async function idleRefresh(
  sessions: number,
  policy: IdleRefreshRun['policy'],
  runs = 10,
): Promise<IdleRefreshRun> {
  const now = Math.floor(Date.now() / 1000);
  const sim = await startSimulator({
    sessions,
    seed: 7,
    rate: 100_000,
    burst: 100_000,
    nonFinalShare: 0.1,
    from: now - 365 * DAY,
    to: now - 60,
  });
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-bench-'));
  try {
    const refresh =
      policy === 'default budget (a tenth of the token)'
        ? { budgetShare: 0.1 * (10 / 100_000) }
        : { hotSeconds: 10 * 365 * DAY, maxRequestsPerRun: 1_000_000_000 };
    writeFileSync(join(dir, 'ivsync.json'), JSON.stringify({ refresh }));
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${join(dir, 'ivsync.sqlite')}`,
      IVS_CONFIG: join(dir, 'ivsync.json'),
      IVS_RATE: '100000',
    };
    let t = now * 1000;
    await cli(['sync', '--since', String(now - 366 * DAY)], env, () => t);
    const requests: number[] = [];
    for (let run = 0; run < runs; run++) {
      t += RUN_SECONDS * 1000;
      requests.push((JSON.parse(await cli(['sync', '--json'], env, () => t)) as { requests: number }).requests);
    }
    const status = JSON.parse(await cli(['status', '--json'], env, () => t)) as { nonFinal: Record<string, number> };
    return { sessions, policy, nonFinal: status.nonFinal.authentications! + status.nonFinal.fingerprints!, requests };
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function idleRefreshTable(rows: readonly IdleRefreshRun[]): string {
  return markdownTable(
    [
      'sessions',
      'non-final',
      'refresh',
      'idle run 1',
      'idle run 2',
      'most of runs 3-10',
      'least of runs 3-10',
      'runs 1-10 total',
    ],
    rows.map((r) => [
      r.sessions,
      r.nonFinal,
      r.policy,
      r.requests[0],
      r.requests[1],
      Math.max(...r.requests.slice(2)),
      Math.min(...r.requests.slice(2)),
      r.requests.reduce((a, b) => a + b, 0),
    ]),
  );
}

// `node dist/bench/idle-refresh.js --sessions 3000`
if (isEntryPoint(import.meta.url)) {
  const sessions = numberFlag(process.argv, '--sessions') ?? 3000;
  const rows = process.argv.includes('--policy-only')
    ? []
    : [await idleRefresh(sessions, 'every non-final session, every run')];
  rows.push(await idleRefresh(sessions, 'default budget (a tenth of the token)'));
  process.stdout.write(`${idleRefreshTable(rows)}\n`);
}
