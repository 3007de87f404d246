import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { PAGE_LIMIT } from '../src/api/route-book.js';
import { mulberry32 } from '../src/simulator/prng.js';
import { startSimulator } from '../src/simulator/index.js';
import { DEFAULT_TO_EPOCH } from '../src/simulator/simulator-options.js';
import { launch } from './cli-launch.js';

const REPORTER = fileURLToPath(new URL('./usage-reporter.js', import.meta.url));

export interface CrawlRun {
  label: string;
  sessions: number;
  latencyMs: number | [number, number];
  rate: number;
  seconds: number;
  requests: number;
  /** Requests per second over the span from the first to the last request the service received. */
  requestsPerSecond: number;
  ratio: number;
  /** The same over the whole command, start-up and the last response included. */
  wallRatio: number;
  items: number;
  itemsPerSecond: number;
  /** items/s against what the limit allows: rate × 25 items a page. */
  limitShare: number;
  /** Search pages the service answered. */
  pages: number;
  /** The fewest pages that hold every item: the sum over resources of ceil(items / 25). */
  minPages: number;
  count429: number;
  pagesRefetched: number;
  peakRssMb: number;
  cpuMsPer1000Items: number;
}

export interface CrawlRunOptions {
  /** Days of history the simulator spreads the sessions over (ending at its fixed end). @default 365 */
  days?: number;
  /**
   * Days the backfill covers, ending at the same end: more than `days` when the account began after the backfill's
   * `--from`. @default days + 1
   */
  backfillDays?: number;
  /** Sessions added (four in five authentications) within three days, 200 days before the history's end. @default 0 */
  burst?: number;
}

/** Runs one backfill of the simulator's whole history in a child process and measures it. */
export async function crawlRun(
  label: string,
  sessions: number,
  latencyMs: number | [number, number],
  rate: number,
  options: CrawlRunOptions = {},
): Promise<CrawlRun> {
  const days = options.days ?? 365;
  const backfillDays = options.backfillDays ?? days + 1;
  const sim = await startSimulator({
    sessions,
    seed: 42,
    rate,
    burst: rate,
    latencyMs,
    otherOwnerSessions: 0,
    from: DEFAULT_TO_EPOCH - days * 86_400,
  });
  const random = mulberry32(42);
  for (let i = 0; i < (options.burst ?? 0); i++) {
    const epoch = DEFAULT_TO_EPOCH - 200 * 86_400 + random() * 3 * 86_400;
    sim.world.addSession({ epoch, resource: random() < 0.8 ? 'authentications' : 'fingerprints' });
  }
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-bench-'));
  try {
    const db = join(dir, 'bench.sqlite');
    const usageFile = join(dir, 'usage.json');
    const config = join(dir, 'ivsync.json');
    // The defaults a user gets (`crawl.concurrency` 64: enough streams for 10 requests/s up to about 6 s a page).
    writeFileSync(config, JSON.stringify({ crawl: {} }));
    const started = Date.now();
    const code = await new Promise<number>((resolve, reject) => {
      const cli = launch(
        [
          'backfill',
          '--from',
          String(DEFAULT_TO_EPOCH - backfillDays * 86_400),
          '--to',
          String(DEFAULT_TO_EPOCH),
          '--json',
        ],
        {
          IVS_BASE_URL: sim.url,
          IVS_API_TOKEN: 'test-token',
          IVS_DB: `sqlite:${db}`,
          IVS_CONFIG: config,
          IVS_RATE: String(rate),
          IVS_BENCH_USAGE_FILE: usageFile,
        },
        [REPORTER],
      );
      const child = spawn(cli.file, cli.args, { env: cli.env, stdio: ['ignore', 'ignore', 'inherit'] });
      child.on('error', reject);
      child.on('close', (c) => resolve(c ?? -1));
    });
    const seconds = (Date.now() - started) / 1000;
    if (code !== 0) throw new Error(`backfill exited ${code}`);
    const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { maxRssKb: number; userMs: number; systemMs: number };
    const target = new Database(db, { readonly: true });
    const items = (
      target
        .prepare('SELECT (SELECT count(*) FROM authentications) + (SELECT count(*) FROM fingerprints) AS n')
        .get() as { n: number }
    ).n;
    const committedPages = (target.prepare('SELECT sum(pages) AS n FROM sync_windows').get() as { n: number }).n;
    target.close();
    let served = 0;
    for (const [route, byStatus] of Object.entries(sim.stats.byRoute))
      if (route.includes('/search/')) served += byStatus['200'] ?? 0;
    let minPages = 0;
    for (const resource of ['authentications', 'fingerprints'] as const)
      minPages += Math.ceil(sim.world.truth('test-token', resource).length / PAGE_LIMIT);
    const requests = sim.stats.requests;
    // N requests spaced 1/rate apart span (N - 1)/rate seconds.
    const span = ((sim.stats.lastRequestAt ?? 0) - (sim.stats.firstRequestAt ?? 0)) / 1000;
    const busyRps = span > 0 ? (requests - 1) / span : 0;
    return {
      label,
      sessions: sessions + (options.burst ?? 0),
      latencyMs,
      rate,
      seconds,
      requests,
      requestsPerSecond: busyRps,
      ratio: busyRps / rate,
      wallRatio: requests / seconds / rate,
      items,
      itemsPerSecond: items / seconds,
      limitShare: items / seconds / (rate * PAGE_LIMIT),
      pages: served,
      minPages,
      count429: sim.stats.count429,
      pagesRefetched: served - committedPages,
      peakRssMb: usage.maxRssKb / 1024,
      cpuMsPer1000Items: ((usage.userMs + usage.systemMs) / items) * 1000,
    };
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
