import { crawlRun, type CrawlRun } from './crawl-bench.js';

/**
 * `npm run bench`: prints the figures the README quotes. Each backfill runs in
 * a child process against the built-in simulator, so its RSS and CPU are its
 * own. Sections can be picked: `npm run bench -- crawl memory`.
 */
function table(rows: readonly CrawlRun[]): string {
  const header = ['run', 'sessions', 'latency ms', 'limit rps', 'wall s', 'requests', 'req/s', 'ratio', 'wall ratio', 'items/s', '429s', 'refetched', 'peak RSS MB', 'CPU ms/1k items'];
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
    r.count429,
    r.pagesRefetched,
    r.peakRssMb.toFixed(0),
    r.cpuMsPer1000Items.toFixed(0),
  ]);
  const all = [header, ...lines.map((l) => l.map(String))];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const fmt = (r: readonly string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map((l) => fmt(l.map(String)))].join('\n');
}

const sections = process.argv.slice(2);
const want = (name: string) => sections.length === 0 || sections.includes(name);

if (want('crawl')) {
  const rows: CrawlRun[] = [];
  for (const latency of [150, 1000]) rows.push(await crawlRun(`rate @${latency}ms`, 10_000, latency, 10));
  console.log('\nBackfill at the 10 rps limit (simulator latency fixed per run). req/s and ratio: over the span from the first to the last request;');
  console.log('wall ratio: over the whole command, process start-up, migrations and the last response included.\n');
  console.log(table(rows));
}

if (want('memory')) {
  const rows: CrawlRun[] = [];
  // Memory does not depend on the rate: a higher limit keeps the 200k run short.
  for (const sessions of [10_000, 50_000, 200_000]) rows.push(await crawlRun(`memory ${sessions / 1000}k`, sessions, [100, 200], 100));
  console.log('\nPeak RSS as the history grows (100 rps limit, 100-200 ms latency)\n');
  console.log(table(rows));
}
