import { performance } from 'node:perf_hooks';
import { normalizeItems } from '../src/normalize/normalize-item.js';
import type { NormalizedBatch, ObservationContext } from '../src/normalize/rows.js';
import { toIsoMicros } from '../src/normalize/time.js';
import { openSink } from '../src/store/open-sink.js';
import type { PageCommit, WindowKey } from '../src/store/sink.js';

/**
 * The offline ingest figure: normalize + write of pre-fetched pages, as a
 * backfill does once the network is not the limit. Pages of raw v1.4
 * authentication items (parsed JSON, as the API client hands them over; 3 text
 * fields and 1 photo each) are built in memory first; then each group of pages
 * is normalized and committed in one transaction (commitPages).
 */

export interface OfflineIngestOptions {
  /**
   * Items loaded per case.
   * @default 100000
   */
  items?: number;
  /**
   * Items per page, as the service pages them.
   * @default 25
   */
  pageSize?: number;
  /**
   * Pages per transaction (commitPages).
   * @default 400
   */
  pagesPerTransaction?: number;
  /**
   * Where pages are normalized: `main`, in line before each commit;
   * `interleaved`, on the main thread too, but the next group a page at a
   * time while the current one commits (it fills the waits on a driver whose
   * statements run off the main thread: DuckDB, PostgreSQL). A worker thread
   * was measured too and lost: copying pages to it and rows back cost more
   * than normalizing them in place.
   * @default 'interleaved'
   */
  normalizeOn?: NormalizeOn;
  /** Monotonic milliseconds. @default performance.now */
  now?: () => number;
}

export interface OfflineIngestFigure {
  /** `fresh`: every item is new; `replace`: every item is stored and the load is a newer observation. */
  mode: 'fresh' | 'replace';
  normalizeOn: NormalizeOn;
  items: number;
  pagesPerTransaction: number;
  seconds: number;
  itemsPerSecond: number;
}

const BASE_EPOCH = 1_700_000_000;
const WINDOW: WindowKey = { account: 'default', resource: 'authentications', apiVersion: '1.4', windowStart: BASE_EPOCH };
const WINDOW_END = BASE_EPOCH + 100_000_000;

/** One v1.4 search item as the service renders it (api-spec "Authentication session item (v1.4)"). */
export function rawAuthentication(i: number): Record<string, unknown> {
  const id = `A${(0x10000000 + i).toString(16)}`;
  const epoch = BASE_EPOCH + i * 7.000131;
  return {
    service_id: id,
    activity: { name: 'authentication', form_factor: 'microscopic', product_category: 'luxury', product_group: 'bags' },
    certificate: { preview: `https://cert.example.com/p/${id}.png`, site: `https://cert.example.com/${id}` },
    owner: { organization: { name: 'Acme Resale' }, user: { username: `user${i % 17}` } },
    properties: { brand: { id: 'louis_vuitton', display: 'Louis Vuitton' }, material: { id: 'monogram_canvas', display: 'Monogram Canvas' } },
    status: { flag: i % 11 === 0 ? 'review' : null, result: { id: 'authentic', display: 'Authentic', final: i % 5 !== 0 } },
    text_fields: { customer_item_id: `SKU-${i}`, identifier: `SD${i}`, style_code: 'M40995' },
    images: { photos: [`https://photos.example.com/${id}/front.jpg?expires=1700003600`] },
    timestamp: { display: toIsoMicros(epoch), epoch },
  };
}

/** Pages of `pageSize` raw items, `items` in all. */
export function rawPages(items: number, pageSize: number): unknown[][] {
  const pages: unknown[][] = [];
  for (let start = 0; start < items; start += pageSize) {
    const page: unknown[] = [];
    for (let i = start; i < Math.min(items, start + pageSize); i++) page.push(rawAuthentication(i));
    pages.push(page);
  }
  return pages;
}

export type NormalizeOn = 'main' | 'interleaved';

type Normalize = (pages: readonly unknown[][], ctx: ObservationContext) => Promise<NormalizedBatch[]>;

/**
 * Normalizes and commits `pages`, `pagesPerTransaction` at a time. The next
 * group's normalization is asked for before the current group commits, so it
 * can overlap the write.
 */
async function load(
  sink: Awaited<ReturnType<typeof openSink>>,
  pages: readonly unknown[][],
  pagesPerTransaction: number,
  observedAt: string,
  normalize: Normalize,
): Promise<void> {
  const ctx: ObservationContext = { account: 'default', source: 'search', observedAt };
  const groups: unknown[][][] = [];
  for (let start = 0; start < pages.length; start += pagesPerTransaction) groups.push(pages.slice(start, start + pagesPerTransaction));
  let next = groups.length > 0 ? normalize(groups[0]!, ctx) : undefined;
  for (let g = 0; g < groups.length; g++) {
    const batches = await next!;
    next = g + 1 < groups.length ? normalize(groups[g + 1]!, ctx) : undefined;
    // A failed commit ends the load; the normalization already under way must not be left unhandled.
    next?.catch(() => undefined);
    const first = g * pagesPerTransaction;
    await sink.commitPages(batches.map((batch, i) => ({ key: WINDOW, batch, nextCursor: `c${first + i}`, done: false, now: observedAt })));
  }
}

/**
 * Loads the pages into a fresh target (`fresh`), then again as a newer
 * observation (`replace`), timing each; `target` is opened and closed here.
 */
export async function offlineIngest(target: string, options: OfflineIngestOptions = {}): Promise<OfflineIngestFigure[]> {
  const items = options.items ?? 100_000;
  const pageSize = options.pageSize ?? 25;
  const pagesPerTransaction = options.pagesPerTransaction ?? 400;
  const now = options.now ?? (() => performance.now());
  const normalizeOn = options.normalizeOn ?? 'interleaved';
  const pages = rawPages(items, pageSize);
  const normalize: Normalize =
    normalizeOn === 'interleaved'
      ? async (group, ctx) => {
          const batches: NormalizedBatch[] = [];
          for (const page of group) {
            // A turn of the event loop per page lets the commit's callbacks in.
            await new Promise<void>((resolve) => setImmediate(resolve));
            batches.push(normalizeItems('authentications', '1.4', page, ctx));
          }
          return batches;
        }
      : (group, ctx) => Promise.resolve(group.map((page) => normalizeItems('authentications', '1.4', page, ctx)));
  const sink = await openSink(target);
  try {
    await sink.planWindows([{ ...WINDOW, windowEnd: WINDOW_END }]);
    await sink.startPass(WINDOW, { passFrom: BASE_EPOCH, passTo: WINDOW_END, startedAt: toIsoMicros(WINDOW_END) });
    const figures: OfflineIngestFigure[] = [];
    for (const [mode, observedAt] of [
      ['fresh', toIsoMicros(WINDOW_END + 1)],
      ['replace', toIsoMicros(WINDOW_END + 2)],
    ] as const) {
      const started = now();
      await load(sink, pages, pagesPerTransaction, observedAt, normalize);
      const seconds = (now() - started) / 1000;
      figures.push({ mode, normalizeOn, items, pagesPerTransaction, seconds, itemsPerSecond: items / seconds });
    }
    const [counts] = await sink.query('SELECT COUNT(*) AS n FROM authentications');
    if (Number(counts?.n) !== items) throw new Error(`offline ingest: ${String(counts?.n)} rows stored, ${items} loaded`);
    return figures;
  } finally {
    await sink.close();
  }
}
