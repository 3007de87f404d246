import { performance } from 'node:perf_hooks';
import { MAX_PAGES_PER_COMMIT } from '../src/crawl/engine/commit-queue.js';
import { itemTexts } from '../src/api/element-texts.js';
import { normalizeItems } from '../src/normalize/normalize-item.js';
import type { NormalizedBatch, ObservationContext } from '../src/normalize/rows.js';
import { toIsoMicros } from '../src/normalize/time.js';
import { openSink } from '../src/store/open-sink.js';
import type { WindowKey } from '../src/store/sink.js';

/**
 * The offline ingest figure: normalize + write of pre-fetched pages, as a
 * backfill does once the network is not the limit. Each group of pages of raw
 * v1.4 authentication items (3 text fields and 1 photo each; the body's text
 * and its parse, as the API client has them) is built with the clock stopped;
 * then each item's text is sliced from the body, the items normalized and the
 * group committed in one transaction (commitPages) with the clock running.
 * Groups are built as they are needed rather than all up front: a backfill
 * holds the pages in flight, not the whole history, and a heap holding every
 * page would make each garbage collection of the measured work walk it.
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
   * Pages per transaction (commitPages): the most a backfill's group commit takes.
   * @default MAX_PAGES_PER_COMMIT
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
const WINDOW: WindowKey = {
  account: 'default',
  resource: 'authentications',
  apiVersion: '1.4',
  windowStart: BASE_EPOCH,
};
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
    properties: {
      brand: { id: 'louis_vuitton', display: 'Louis Vuitton' },
      material: { id: 'monogram_canvas', display: 'Monogram Canvas' },
    },
    status: {
      flag: i % 11 === 0 ? 'review' : null,
      result: { id: 'authentic', display: 'Authentic', final: i % 5 !== 0 },
    },
    text_fields: { customer_item_id: `SKU-${i}`, identifier: `SD${i}`, style_code: 'M40995' },
    images: { photos: [`https://photos.example.com/${id}/front.jpg?expires=1700003600`] },
    timestamp: { display: toIsoMicros(epoch), epoch },
  };
}

/** A search page as the API client hands it over: the body's text and its parsed items. */
export interface RawPage {
  text: string;
  items: unknown[];
}

/**
 * Pages of `pageSize` raw items: items `from` to `to` (exclusive), each page
 * as a search body's JSON text and that text parsed, as the client has it.
 */
export function rawPages(from: number, to: number, pageSize: number): RawPage[] {
  const pages: RawPage[] = [];
  for (let start = from; start < to; start += pageSize) {
    const items: unknown[] = [];
    for (let i = start; i < Math.min(to, start + pageSize); i++) items.push(rawAuthentication(i));
    const text = JSON.stringify({ items, item_count: items.length, next_cursor: `c${start}` });
    pages.push({ text, items: (JSON.parse(text) as { items: unknown[] }).items });
  }
  return pages;
}

/**
 * A page's rows, as the crawl gets them: the client slices each item's text from the body (timed), the normalizer maps
 * it.
 */
function normalizePage(page: RawPage, ctx: ObservationContext): NormalizedBatch {
  return normalizeItems('authentications', '1.4', page.items, ctx, itemTexts(page.text, 'items', page.items.length));
}

export type NormalizeOn = 'main' | 'interleaved';

type Normalize = (pages: readonly RawPage[], ctx: ObservationContext) => Promise<NormalizedBatch[]>;

interface LoadPlan {
  items: number;
  pageSize: number;
  pagesPerTransaction: number;
  now: () => number;
}

/**
 * Normalizes and commits `plan.items` items, `pagesPerTransaction` pages at a
 * time, and returns the seconds spent doing so; building a group's raw pages
 * is not counted. With `ahead`, the next group's normalization is asked for
 * before the current group commits, so it can fill the driver's waits;
 * without, each group is normalized just before its commit, as a crawl does
 * with a page that arrives.
 */
async function load(
  sink: Awaited<ReturnType<typeof openSink>>,
  plan: LoadPlan,
  observedAt: string,
  normalize: Normalize,
  ahead: boolean,
): Promise<number> {
  const ctx: ObservationContext = { account: 'default', source: 'search', observedAt };
  const groupItems = plan.pageSize * plan.pagesPerTransaction;
  const groups = Math.ceil(plan.items / groupItems);
  const pagesOf = (g: number) => rawPages(g * groupItems, Math.min(plan.items, (g + 1) * groupItems), plan.pageSize);
  let spent = 0;
  let since = 0;
  const start = () => (since = plan.now());
  const stop = () => (spent += plan.now() - since);
  let next: Promise<NormalizedBatch[]> | undefined;
  for (let g = 0; g < groups; g++) {
    if (next === undefined) {
      const pages = pagesOf(g);
      start();
      next = normalize(pages, ctx);
    } else start();
    const batches = await next;
    next = undefined;
    if (ahead && g + 1 < groups) {
      stop();
      const pages = pagesOf(g + 1);
      start();
      next = normalize(pages, ctx);
      // A failed commit ends the load; the normalization already under way must not be left unhandled.
      next.catch(() => undefined);
    }
    const first = g * plan.pagesPerTransaction;
    await sink.commitPages(
      batches.map((batch, i) => ({ key: WINDOW, batch, nextCursor: `c${first + i}`, done: false, now: observedAt })),
    );
    stop();
  }
  return spent / 1000;
}

/**
 * Loads the pages into a fresh target (`fresh`), then again as a newer
 * observation (`replace`), timing each; `target` is opened and closed here.
 */
export async function offlineIngest(
  target: string,
  options: OfflineIngestOptions = {},
): Promise<OfflineIngestFigure[]> {
  const items = options.items ?? 100_000;
  const pageSize = options.pageSize ?? 25;
  const pagesPerTransaction = options.pagesPerTransaction ?? MAX_PAGES_PER_COMMIT;
  const now = options.now ?? (() => performance.now());
  const normalizeOn = options.normalizeOn ?? 'interleaved';
  const normalize: Normalize =
    normalizeOn === 'interleaved'
      ? async (group, ctx) => {
          const batches: NormalizedBatch[] = [];
          for (const page of group) {
            // A turn of the event loop per page lets the commit's callbacks in.
            await new Promise<void>((resolve) => setImmediate(resolve));
            batches.push(normalizePage(page, ctx));
          }
          return batches;
        }
      : (group, ctx) => Promise.resolve(group.map((page) => normalizePage(page, ctx)));
  const sink = await openSink(target);
  try {
    await sink.planWindows([{ ...WINDOW, windowEnd: WINDOW_END }]);
    await sink.startPass(WINDOW, { passFrom: BASE_EPOCH, passTo: WINDOW_END, startedAt: toIsoMicros(WINDOW_END) });
    const figures: OfflineIngestFigure[] = [];
    for (const [mode, observedAt] of [
      ['fresh', toIsoMicros(WINDOW_END + 1)],
      ['replace', toIsoMicros(WINDOW_END + 2)],
    ] as const) {
      const seconds = await load(
        sink,
        { items, pageSize, pagesPerTransaction, now },
        observedAt,
        normalize,
        normalizeOn === 'interleaved',
      );
      figures.push({ mode, normalizeOn, items, pagesPerTransaction, seconds, itemsPerSecond: items / seconds });
    }
    const [counts] = await sink.query('SELECT COUNT(*) AS n FROM authentications');
    if (Number(counts?.n) !== items)
      throw new Error(`offline ingest: ${String(counts?.n)} rows stored, ${items} loaded`);
    return figures;
  } finally {
    await sink.close();
  }
}
