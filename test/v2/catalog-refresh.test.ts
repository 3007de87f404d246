import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { refreshCatalog } from '../../src/crawl/runs/catalog-refresh.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openSink } from '../../src/store/open-sink.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { clientOptions } from '../helpers/client-options.js';

const tempDir = useTempDir();
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setup(catalogUnavailableShare: number): Promise<{ sim: RunningSimulator; sink: QueryableSink }> {
  const sim = await startSimulator({ sessions: 5, catalogUnavailableShare, seed: 3 });
  open.push(sim);
  const sink = await openSink(`sqlite:${join(tempDir(), 'x.sqlite')}`);
  open.push(sink);
  return { sim, sink };
}

function client(sim: RunningSimulator) {
  const c = createClient(clientOptions(sim.url, { apiVersion: '2', retry: { limit: 3, baseMs: 1, maxMs: 5 } }));
  open.push(c);
  return c;
}

const clock = () => Date.UTC(2026, 10, 1);
const count = async (sink: QueryableSink, table: string) =>
  Number((await sink.query(`SELECT count(*) AS n FROM ${table}`))[0]!.n);

describe('refreshCatalog', () => {
  it('stores both sources, then keeps the catalog rows it has when the catalog stays unavailable', async () => {
    const { sim, sink } = await setup(0);
    const first = await refreshCatalog({ account: 'eu', client: client(sim), sink, clock });
    expect(first.failures).toEqual([]);
    expect(first.problems).toEqual([]);
    expect(first.stored.catalog_categories).toBe(2);
    expect(first.stored.catalog_brands).toBe(await count(sink, 'catalog_brands'));
    expect(await sink.query('SELECT DISTINCT last_synced_at FROM catalog_brands')).toEqual([
      { last_synced_at: '2026-11-01T00:00:00.000000Z' },
    ]);

    const { sim: down } = await setup(1);
    const second = await refreshCatalog({ account: 'eu', client: client(down), sink, clock });
    expect(second.failures).toHaveLength(1);
    expect(second.failures[0]).toMatch(
      /^supported catalog: gave up on GET \S*\/v2\/supported-catalog after \d+ attempts: HTTP 503/,
    );
    expect(second.stored).not.toHaveProperty('catalog_categories');
    expect(await count(sink, 'catalog_categories')).toBe(2);
    expect(second.stored.catalog_brands).toBe(first.stored.catalog_brands);
  });

  it("replaces only its own account's rows", async () => {
    const { sim, sink } = await setup(0);
    await refreshCatalog({ account: 'eu', client: client(sim), sink, clock });
    await refreshCatalog({ account: 'us', client: client(sim), sink, clock });
    await refreshCatalog({ account: 'us', client: client(sim), sink, clock });
    const perAccount = await sink.query(
      'SELECT account, count(*) AS n FROM catalog_categories GROUP BY account ORDER BY account',
    );
    expect(perAccount.map((r) => [r.account, Number(r.n)])).toEqual([
      ['eu', 2],
      ['us', 2],
    ]);
  });
});
