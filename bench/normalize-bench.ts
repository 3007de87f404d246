import { performance } from 'node:perf_hooks';
import { normalizeItems } from '../src/normalize/normalize-item.js';
import type { ApiVersion, ObservationContext, Resource } from '../src/normalize/rows.js';
import { toIsoMicros } from '../src/normalize/time.js';
import { isEntryPoint } from './script-args.js';

/**
 * Items per second of the normalizer alone (no database), for each interface
 * and resource, on pages of 25 items as the crawler hands them over.
 * Run after `npm run build`: `node dist/bench/normalize-bench.js [items]`.
 */

export interface NormalizeBenchOptions {
  /**
   * Items normalized per case (after one warm-up pass over the pool of items).
   * @default 200000
   */
  items?: number;
  /**
   * Items per page.
   * @default 25
   */
  pageSize?: number;
  /** Monotonic milliseconds. @default performance.now */
  now?: () => number;
}

export interface NormalizeBenchFigure {
  case: string;
  items: number;
  seconds: number;
  itemsPerSecond: number;
  microsPerItem: number;
}

const BASE_EPOCH = 1_795_316_777;
const POOL_SIZE = 5000;

function v14Authentication(i: number): unknown {
  const epoch = BASE_EPOCH - i * 37.123457;
  return {
    service_id: `A-${i}`,
    activity: { name: 'authentication', form_factor: 'microscopic', product_category: 'luxury', product_group: 'bags' },
    certificate: { preview: `https://cert.example.com/p/A-${i}.png`, site: `https://cert.example.com/A-${i}` },
    owner: { organization: { name: 'Acme Resale' }, user: { username: `user${i % 17}` } },
    properties: {
      brand: { id: 'louis_vuitton', display: 'Louis Vuitton' },
      material: { id: 'monogram_canvas', display: 'Monogram Canvas' },
    },
    status: {
      flag: i % 11 === 0 ? 'review' : null,
      result: { id: 'authentic', display: 'Authentic', final: i % 5 !== 0 },
    },
    text_fields: { customer_item_id: `SKU-${i}`, identifier: `SD${i}`, style_code: 'M40995', us_size: '9.5' },
    timestamp: { display: toIsoMicros(epoch), epoch },
  };
}

function v14Fingerprint(i: number): unknown {
  const epoch = BASE_EPOCH - i * 41.000003;
  const compare = i % 2 === 1;
  return {
    service_id: `F-${i}`,
    activity: { name: 'fingerprint', mode: compare ? 'compare' : 'register', form_factor: 'microscopic' },
    ...(compare
      ? {
          fingerprint_parent: {
            activity: { form_factor: 'microscopic', mode: 'register', name: 'fingerprint' },
            service_id: `F-${i - 1}`,
            text_fields: { customer_item_id: `BAG-${i - 1}` },
            url: `https://api.example.com/v1/fingerprints/F-${i - 1}`,
          },
        }
      : {}),
    owner: { organization: { name: 'Acme Resale' }, user: { username: `user${i % 17}` } },
    status: {
      flag: null,
      result: { id: compare ? 'match' : 'registered', display: compare ? 'Match' : 'Registered', final: true },
    },
    text_fields: { customer_item_id: `BAG-${i}` },
    timestamp: { display: toIsoMicros(epoch), epoch },
  };
}

function v2Authentication(i: number): unknown {
  const created = toIsoMicros(BASE_EPOCH - i * 37.123457);
  return {
    service_id: `V2-A-${i}`,
    timestamp: { created_at: created, last_updated_at: created },
    status: {
      result: { id: 'authentic', final: true, display: 'Authentic' },
      initial_result: { id: 'unidentified', final: false, display: null },
      flag: null,
      retake: { retake_required: false, display: 'No retake needed' },
    },
    activity: {
      form_factor: 'free_camera',
      name: 'authentication',
      product_category: 'luxury',
      product_group: 'bags',
      mode: null,
    },
    properties: { customer_item_id: `ORDER-${i}`, brand: 'chanel', material: 'caviar_leather' },
    owner: { organization_id: 'org-1', user_id: `user-${i % 17}` },
    certificate: { certificate_id: `cert-${i}` },
    text_fields: { serial: `X${i}` },
    images: { front: { metadata: { width: 1200 } } },
    catalog: null,
    fingerprint_parent: null,
  };
}

function v2Fingerprint(i: number): unknown {
  const created = toIsoMicros(BASE_EPOCH - i * 41.000003);
  const compare = i % 2 === 1;
  return {
    service_id: `V2-F-${i}`,
    timestamp: { created_at: created },
    status: { result: { id: 'verified', final: true, display: null }, initial_result: null, flag: null },
    activity: {
      form_factor: 'microscopic',
      name: 'fingerprint',
      product_category: null,
      product_group: null,
      mode: compare ? 'compare' : 'register',
    },
    properties: {
      customer_item_id: `BAG-${i}`,
      brand: { id: 'hermes', name: 'Hermès' },
      device_id: 'dev-1',
      app_version: '5.2.0',
    },
    owner: { organization_id: 'org-1', user_id: `user-${i % 17}` },
    certificate: null,
    text_fields: null,
    images: null,
    catalog: null,
    fingerprint_parent: compare ? { service_id: `V2-F-${i - 1}`, relationship_type: 'compared_to' } : null,
  };
}

const CASES: ReadonlyArray<{ name: string; resource: Resource; apiVersion: ApiVersion; make: (i: number) => unknown }> =
  [
    { name: 'v1.4 authentications', resource: 'authentications', apiVersion: '1.4', make: v14Authentication },
    { name: 'v1.4 fingerprints', resource: 'fingerprints', apiVersion: '1.4', make: v14Fingerprint },
    { name: 'v2 authentications', resource: 'authentications', apiVersion: '2', make: v2Authentication },
    { name: 'v2 fingerprints', resource: 'fingerprints', apiVersion: '2', make: v2Fingerprint },
  ];

export function runNormalizeBench(options: NormalizeBenchOptions = {}): NormalizeBenchFigure[] {
  const items = options.items ?? 200_000;
  const pageSize = options.pageSize ?? 25;
  const now = options.now ?? (() => performance.now());
  const ctx: ObservationContext = { account: 'default', source: 'search', observedAt: '2026-11-22T04:00:00.000000Z' };
  const figures: NormalizeBenchFigure[] = [];
  for (const c of CASES) {
    // A pool of distinct items (parsed JSON, as the API client hands them
    // over) is cycled through: a heap holding every item at once would make
    // the figure one of the garbage collector.
    const pages: unknown[][] = [];
    for (let start = 0; start < POOL_SIZE; start += pageSize) {
      const page: unknown[] = [];
      for (let i = start; i < Math.min(POOL_SIZE, start + pageSize); i++) page.push(c.make(i));
      pages.push(page);
    }
    const pageCount = Math.ceil(items / pageSize);
    for (let p = 0; p < pages.length; p++) normalizeItems(c.resource, c.apiVersion, pages[p] ?? [], ctx);
    let rejected = 0;
    const started = now();
    for (let p = 0; p < pageCount; p++)
      rejected += normalizeItems(c.resource, c.apiVersion, pages[p % pages.length] ?? [], ctx).rejected.length;
    const seconds = (now() - started) / 1000;
    if (rejected > 0)
      throw new Error(`${c.name}: ${rejected} items were rejected; the figures would not be of the full path`);
    const done = pageCount * pageSize;
    figures.push({
      case: c.name,
      items: done,
      seconds,
      itemsPerSecond: Math.round(done / seconds),
      microsPerItem: (seconds * 1e6) / done,
    });
  }
  return figures;
}

if (isEntryPoint(import.meta.url)) {
  const items = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
  for (const f of runNormalizeBench(items === undefined ? {} : { items })) {
    process.stdout.write(
      `${f.case.padEnd(22)} ${String(f.itemsPerSecond).padStart(9)} items/s  ${f.microsPerItem.toFixed(2)} ` +
        `us/item  (${f.items} items)\n`,
    );
  }
}
