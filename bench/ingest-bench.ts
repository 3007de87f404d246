/**
 * Write throughput of the store, normalize-free: pre-built 25-item pages
 * committed 1, 40 and 400 pages per transaction (commitPages), per target.
 * "insert" writes new sessions; "replace" writes the same sessions again,
 * newer, so every item is read, decided and replaced with its children.
 *
 *   npm run build && node dist/bench/ingest-bench.js [items per case, default 20000]
 *
 * PostgreSQL is measured when IVS_BENCH_POSTGRES_URL (or IVS_TEST_POSTGRES_URL)
 * is set, in a throw-away schema.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { NormalizedAuthentication, NormalizedBatch } from '../src/normalize/rows.js';
import { openSink } from '../src/store/open-sink.js';
import type { PageCommit, WindowKey } from '../src/store/sink.js';

const PAGE_SIZE = 25;

function iso(epoch: number): string {
  return new Date(epoch * 1000).toISOString().replace('Z', '000Z');
}

function session(i: number, observedAt: string): NormalizedAuthentication {
  const id = `svc-${i.toString(16).padStart(10, '0')}`;
  const created = 1_700_000_000 + i;
  const raw = JSON.stringify({
    service_id: id,
    activity: { name: 'authentication', form_factor: 'microscopic', product_category: 'luxury', product_group: 'bags' },
    properties: { brand: { id: 'acme', display: 'Acme' }, material: { id: 'leather', display: 'Leather' } },
    status: { result: { id: 'authentic', display: 'Authentic', final: i % 10 !== 0 }, flag: null },
    text_fields: { customer_item_id: `order-${i}`, identifier: `ID${i}`, style_code: 'S-1' },
    owner: { organization: { name: 'org' }, user: { username: 'analyst' } },
    certificate: { preview: `https://cert.example.com/p/${id}`, site: `https://cert.example.com/${id}` },
    timestamp: { display: iso(created), epoch: created },
    images: { photos: [`https://img.example.com/${id}/0.jpg`] },
  });
  return {
    resource: 'authentications',
    row: {
      service_id: id,
      account: 'default',
      api_version: '1.4',
      form_factor: 'microscopic',
      product_category: 'luxury',
      product_group: 'bags',
      brand_id: 'acme',
      brand_display: 'Acme',
      material_id: 'leather',
      material_display: 'Leather',
      result_id: 'authentic',
      result_display: 'Authentic',
      result_final: i % 10 !== 0,
      initial_result_id: null,
      flag: null,
      retake_required: null,
      customer_item_id: `order-${i}`,
      identifier: `ID${i}`,
      style_code: 'S-1',
      us_size: null,
      organization_name: 'org',
      username: 'analyst',
      organization_id: null,
      user_id: null,
      certificate_id: null,
      certificate_preview: `https://cert.example.com/p/${id}`,
      certificate_site: `https://cert.example.com/${id}`,
      created_at: iso(created),
      created_epoch: created,
      last_updated_at: null,
      update_counter: null,
      first_seen_at: observedAt,
      last_synced_at: observedAt,
      missing_since: null,
      source: 'search',
      raw,
    },
    textFields: [
      { service_id: id, key: 'customer_item_id', value: `order-${i}` },
      { service_id: id, key: 'identifier', value: `ID${i}` },
      { service_id: id, key: 'style_code', value: 'S-1' },
    ],
    images: [{ service_id: id, name: 'photo_0', url: `https://img.example.com/${id}/0.jpg`, metadata: null }],
    warnings: [],
    preserve: [],
  };
}

function pages(key: WindowKey, items: number, observedAt: string): PageCommit[] {
  const out: PageCommit[] = [];
  for (let p = 0; p * PAGE_SIZE < items; p += 1) {
    const batch: NormalizedBatch = { sessions: [], rejected: [] };
    for (let i = p * PAGE_SIZE; i < Math.min(items, (p + 1) * PAGE_SIZE); i += 1)
      batch.sessions.push(session(i, observedAt));
    out.push({ key, batch, nextCursor: `cursor-${p}`, done: false, now: observedAt });
  }
  return out;
}

async function measure(target: string, items: number, pagesPerTx: number, rewrite: boolean): Promise<number> {
  const sink = await openSink(target);
  try {
    const key: WindowKey = {
      account: 'default',
      resource: 'authentications',
      apiVersion: '1.4',
      windowStart: 1_700_000_000,
    };
    await sink.planWindows([{ ...key, windowEnd: 1_800_000_000 }]);
    await sink.startPass(key, { passFrom: key.windowStart, passTo: 1_800_000_000, startedAt: iso(1_800_000_000) });
    if (rewrite) for (const group of chunk(pages(key, items, iso(1_800_000_001)), 40)) await sink.commitPages(group);
    const all = pages(key, items, iso(1_800_000_002));
    const started = performance.now();
    for (const group of chunk(all, pagesPerTx)) await sink.commitPages(group);
    return items / ((performance.now() - started) / 1000);
  } finally {
    await sink.close();
  }
}

function chunk<T>(xs: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

async function main(): Promise<void> {
  const items = Number(process.argv[2] ?? 20_000);
  const dir = await mkdtemp(join(tmpdir(), 'ivsync-bench-'));
  const pgUrl = process.env.IVS_BENCH_POSTGRES_URL ?? process.env.IVS_TEST_POSTGRES_URL;
  const schemas: string[] = [];
  const targets: Array<[string, () => string]> = [
    ['sqlite', () => `sqlite:${join(dir, `${randomBytes(4).toString('hex')}.sqlite`)}`],
    ['duckdb', () => `duckdb:${join(dir, `${randomBytes(4).toString('hex')}.duckdb`)}`],
  ];
  if (pgUrl) {
    targets.push([
      'postgres',
      () => {
        const url = new URL(pgUrl);
        const schema = `ivs_bench_${randomBytes(4).toString('hex')}`;
        schemas.push(schema);
        url.searchParams.set('schema', schema);
        return url.toString();
      },
    ]);
  }
  console.log(`items per case: ${items}, ${PAGE_SIZE} items per page, 3 text fields + 1 image per item`);
  console.log('target    pages/tx  insert items/s  replace items/s');
  try {
    for (const [name, next] of targets) {
      for (const pagesPerTx of [1, 40, 400]) {
        const insert = await measure(next(), items, pagesPerTx, false);
        const replace = await measure(next(), items, pagesPerTx, true);
        console.log(
          `${name.padEnd(10)}${String(pagesPerTx).padStart(8)}${Math.round(insert).toString().padStart(16)}` +
            `${Math.round(replace).toString().padStart(17)}`,
        );
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
    if (pgUrl && schemas.length > 0) {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }
}

await main();
