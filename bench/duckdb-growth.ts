import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { itemTexts } from '../src/api/element-texts.js';
import { normalizeItems } from '../src/normalize/normalize-item.js';
import type { ObservationContext } from '../src/normalize/rows.js';
import { spreadServiceId } from '../src/simulator/id-mint.js';
import { openSink } from '../src/store/open-sink.js';
import type { WindowKey } from '../src/store/sink.js';
import { rawAuthentication } from './offline-ingest.js';
import { isEntryPoint, numberFlag } from './script-args.js';

/**
 * How a DuckDB target's commits and buffer pool grow with its history, in
 * minutes rather than a crawl's hours: groups of 64 pages of v1.4
 * authentications with service-like (random) ids, committed through the real
 * sink (`commitPages`) into a fresh file, and every `every` sessions the mean
 * commit time, the process's RSS, the file and what DuckDB's own
 * `duckdb_memory()` says each part of its pool holds. It stops at the first
 * failed commit and prints it.
 *
 * `node dist/bench/duckdb-growth.js [--sessions 4000000] [--every 250000]`
 */

const BASE_EPOCH = 1_700_000_000;
const PAGES_PER_GROUP = 64;
const PAGE_SIZE = 25;

/** Items `from` to `to` as a page, ids spread as the service's are (sequential ones let DuckDB skip row groups). */
function page(from: number, to: number): { text: string; items: unknown[] } {
  const items: unknown[] = [];
  for (let i = from; i < to; i++) items.push({ ...rawAuthentication(i), service_id: spreadServiceId(i) });
  const text = JSON.stringify({ items, item_count: items.length, next_cursor: `c${from}` });
  return { text, items: (JSON.parse(text) as { items: unknown[] }).items };
}

const megabytes = (bytes: number): number => Math.round(bytes / 2 ** 20);

export async function duckdbGrowth(sessions: number, every: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ivsync-duckdb-growth-'));
  const file = join(dir, 'growth.duckdb');
  const sink = await openSink(`duckdb:${file}`);
  try {
    const key: WindowKey = { account: 'default', resource: 'authentications', apiVersion: '1.4', windowStart: 0 };
    await sink.planWindows([{ ...key, windowEnd: 2 * BASE_EPOCH }]);
    const observedAt = '2026-11-27T00:00:00.000000Z';
    await sink.startPass(key, { passFrom: 0, passTo: 2 * BASE_EPOCH, startedAt: observedAt });
    const ctx: ObservationContext = { account: 'default', source: 'search', observedAt };
    const group = PAGE_SIZE * PAGES_PER_GROUP;
    const started = performance.now();
    let commitMs = 0;
    let commits = 0;
    for (let at = 0; at < sessions; at += group) {
      const batches = [];
      for (let p = at; p < Math.min(sessions, at + group); p += PAGE_SIZE) {
        const { text, items } = page(p, Math.min(sessions, p + PAGE_SIZE));
        batches.push(normalizeItems('authentications', '1.4', items, ctx, itemTexts(text, 'items', items.length)));
      }
      const before = performance.now();
      try {
        await sink.commitPages(
          batches.map((batch, i) => ({ key, batch, nextCursor: `c${at + i}`, done: false, now: observedAt })),
        );
      } catch (error) {
        console.log(JSON.stringify({ failedAt: at, error: error instanceof Error ? error.message : String(error) }));
        return;
      }
      commitMs += performance.now() - before;
      commits++;
      const stored = Math.min(sessions, at + group);
      if (stored % every >= group && stored < sessions) continue;
      const pool = await sink.query(
        'SELECT tag, memory_usage_bytes AS bytes FROM duckdb_memory() WHERE memory_usage_bytes > 0 ORDER BY tag',
      );
      console.log(
        JSON.stringify({
          stored,
          seconds: Math.round((performance.now() - started) / 100) / 10,
          commitMs: Math.round(commitMs / commits),
          rssMb: megabytes(process.memoryUsage().rss),
          fileMb: megabytes(statSync(file).size),
          poolMb: Object.fromEntries(pool.map((r) => [String(r.tag), megabytes(Number(r.bytes))])),
        }),
      );
      commitMs = 0;
      commits = 0;
    }
  } finally {
    await sink.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isEntryPoint(import.meta.url)) {
  await duckdbGrowth(
    numberFlag(process.argv, '--sessions') ?? 4_000_000,
    numberFlag(process.argv, '--every') ?? 250_000,
  );
}
