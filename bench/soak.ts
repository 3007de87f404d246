import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startSimulator } from '../src/simulator/index.js';
import { launch } from './cli-launch.js';

/**
 * Soak: the daemon (a child process, as deployed) against the simulator with
 * faults and a stream of changes for N minutes at a compressed schedule.
 * Reports runs, requests, 429s, RSS at start and end, and the largest
 * freshness lag seen. `node dist/bench/soak.js --minutes 5`, or
 * `npm run bench -- soak` (30 minutes).
 */
export interface SoakOptions {
  /** @default 30 */
  minutes?: number;
  /** @default '*\/10 * * * * *' */
  schedule?: string;
  /** @default 3000 */
  sessions?: number;
  /** @default '500=0.02,reset=0.01,truncate=0.01,slow=0.005:2000,429=0.01' */
  faults?: string;
  /** Seconds between /metrics scrapes. @default 5 */
  scrapeSeconds?: number;
  log?: (line: string) => void;
}

export interface SoakReport {
  minutes: number;
  schedule: string;
  runs: Record<string, number>;
  ticksSkipped: Record<string, number>;
  requests: number;
  status429: number;
  simulator429: number;
  faultsInjected: Record<string, number>;
  changes: number;
  /**
   * Medians of the first and the last tenth of the samples after the first tick (one sample is too noisy: a run in
   * flight adds its pages).
   */
  rssStartMb: number;
  rssEndMb: number;
  rssMaxMb: number;
  heapStartMb: number;
  heapEndMb: number;
  largestLagSeconds: number;
  stopSeconds: number;
  exitCode: number | null;
  storedVsTruth: { stored: number; truth: number };
}

/** Sample values of a Prometheus text exposition, by metric name (labels kept as text). */
function samples(text: string): Map<string, Array<{ labels: string; value: number }>> {
  const out = new Map<string, Array<{ labels: string; value: number }>>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const list = out.get(m[1]!) ?? [];
    list.push({ labels: m[2] ?? '', value: Number(m[3]) });
    out.set(m[1]!, list);
  }
  return out;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const sum = (list: ReadonlyArray<{ value: number }> | undefined): number =>
  (list ?? []).reduce((n, s) => n + s.value, 0);

function byLabel(
  list: ReadonlyArray<{ labels: string; value: number }> | undefined,
  label: string,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of list ?? []) {
    const m = new RegExp(`${label}="([^"]*)"`).exec(s.labels);
    const key = m?.[1] ?? '';
    out[key] = (out[key] ?? 0) + s.value;
  }
  return out;
}

export async function soakRun(options: SoakOptions = {}): Promise<SoakReport> {
  const minutes = options.minutes ?? 30;
  const schedule = options.schedule ?? '*/10 * * * * *';
  const log = options.log ?? ((line: string) => console.error(line));
  const now = Math.floor(Date.now() / 1000);
  const from = now - 60 * 86_400;
  const sim = await startSimulator({
    sessions: options.sessions ?? 3000,
    seed: 11,
    rate: 10,
    latencyMs: [20, 120],
    from,
    to: now - 60,
    faults: options.faults ?? '500=0.02,reset=0.01,truncate=0.01,slow=0.005:2000,429=0.01',
  });
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-soak-'));
  const db = join(dir, 'ivsync.sqlite');
  const config = join(dir, 'ivsync.json');
  writeFileSync(
    config,
    JSON.stringify({ crawl: { windowSeconds: 7 * 86_400, concurrency: 8, overlapSeconds: 3_600 }, logLevel: 'warn' }),
  );
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const cli = launch(['daemon', '--schedule', schedule, '--port', String(port), '--since', String(from)], {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: `sqlite:${db}`,
    IVS_CONFIG: config,
    IVS_RATE: '10',
  });
  const child = spawn(cli.file, cli.args, { env: cli.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderrTail = '';
  child.stderr.on('data', (c: Buffer) => (stderrTail = (stderrTail + c.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

  // A stream of changes: new sessions, late uploads, results that become final.
  let changes = 0;
  const changer = setInterval(() => {
    const world = sim.world;
    const roll = Math.random();
    if (roll < 0.5) world.addSession({});
    else if (roll < 0.7) world.addLateUpload({ ageSeconds: 1_800 });
    else {
      const ids = world.serviceIds();
      const id = ids[Math.floor(Math.random() * ids.length)];
      if (id !== undefined) world.finalize(id);
    }
    changes++;
  }, 500);

  const rss: number[] = [];
  const heap: number[] = [];
  let largestLag = 0;
  let last = new Map<string, Array<{ labels: string; value: number }>>();
  let firstTickDone = false;
  const endAt = Date.now() + minutes * 60_000;
  const scrapeMs = (options.scrapeSeconds ?? 5) * 1000;
  while (Date.now() < endAt) {
    await new Promise((r) => setTimeout(r, scrapeMs));
    let text: string;
    try {
      text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    } catch {
      continue;
    }
    last = samples(text);
    const runs = sum(last.get('ivsync_runs_total'));
    if (!firstTickDone && runs > 0) firstTickDone = true;
    // RSS after warm-up (first tick done), so start-up allocation is not counted as growth.
    if (firstTickDone) {
      rss.push(sum(last.get('ivsync_process_resident_memory_bytes')) / 1_048_576);
      heap.push(sum(last.get('ivsync_nodejs_heap_size_used_bytes')) / 1_048_576);
    }
    const lag = Math.max(0, ...(last.get('ivsync_freshness_lag_seconds') ?? []).map((s) => s.value));
    if (firstTickDone) largestLag = Math.max(largestLag, lag);
    const elapsed = ((minutes * 60_000 - (endAt - Date.now())) / 60_000).toFixed(1);
    log(
      `soak ${elapsed} min: runs ${runs}, requests ${sum(last.get('ivsync_requests_total'))}, lag ` +
        `${lag.toFixed(1)} s, RSS ${rss.at(-1)?.toFixed(1) ?? '-'} MB`,
    );
  }
  clearInterval(changer);
  const stopStarted = Date.now();
  child.kill('SIGTERM');
  const exitCode = await exited;
  const stopSeconds = (Date.now() - stopStarted) / 1000;
  if (exitCode !== 0) log(`daemon exited ${exitCode}:\n${stderrTail}`);

  const target = new Database(db, { readonly: true });
  const stored = (
    target.prepare('SELECT COUNT(*) AS n FROM authentications WHERE missing_since IS NULL').get() as { n: number }
  ).n;
  target.close();
  const report: SoakReport = {
    minutes,
    schedule,
    runs: byLabel(last.get('ivsync_runs_total'), 'status'),
    ticksSkipped: byLabel(last.get('ivsync_ticks_skipped_total'), 'reason'),
    requests: sum(last.get('ivsync_requests_total')),
    status429: sum(last.get('ivsync_rate_limited_total')),
    simulator429: sim.stats.count429,
    faultsInjected: { ...sim.stats.faultsInjected },
    changes,
    rssStartMb: median(rss.slice(0, Math.max(1, Math.ceil(rss.length / 10)))),
    rssEndMb: median(rss.slice(-Math.max(1, Math.ceil(rss.length / 10)))),
    rssMaxMb: Math.max(0, ...rss),
    heapStartMb: median(heap.slice(0, Math.max(1, Math.ceil(heap.length / 10)))),
    heapEndMb: median(heap.slice(-Math.max(1, Math.ceil(heap.length / 10)))),
    largestLagSeconds: largestLag,
    stopSeconds,
    exitCode,
    // Changes after the last tick are not stored yet: the two differ by at most those.
    storedVsTruth: { stored, truth: sim.world.truth('test-token', 'authentications').length },
  };
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
  return report;
}

export function renderSoak(r: SoakReport): string {
  return [
    `Soak: ${r.minutes} min, schedule '${r.schedule}', simulator with faults and a change every 0.5 s`,
    `runs: ${JSON.stringify(r.runs)}; ticks skipped: ${JSON.stringify(r.ticksSkipped)}`,
    `requests: ${r.requests}; 429s seen by the client: ${r.status429} (bucket 429s at the simulator: ` +
      `${r.simulator429}); faults injected: ${JSON.stringify(r.faultsInjected)}`,
    `RSS (median of the first / last tenth of the samples after the first tick): ${r.rssStartMb.toFixed(1)} MB ` +
      `-> ${r.rssEndMb.toFixed(1)} MB; max ${r.rssMaxMb.toFixed(1)} MB`,
    `heap used, same samples: ${r.heapStartMb.toFixed(1)} MB -> ${r.heapEndMb.toFixed(1)} MB`,
    `largest freshness lag seen: ${r.largestLagSeconds.toFixed(1)} s`,
    `SIGTERM to exit: ${r.stopSeconds.toFixed(2)} s (exit code ${r.exitCode})`,
    `authentications stored ${r.storedVsTruth.stored} / truth ${r.storedVsTruth.truth} (changes after the last ` +
      `tick not yet synced); ${r.changes} changes made`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--minutes');
  const minutes = at > 0 ? Number(process.argv[at + 1]) : 30;
  const sched = process.argv.indexOf('--schedule');
  console.log(renderSoak(await soakRun({ minutes, ...(sched > 0 ? { schedule: process.argv[sched + 1]! } : {}) })));
}
