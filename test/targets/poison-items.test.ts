import { expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { withDeepNesting } from '../../src/simulator/poison.js';
import { openSink } from '../../src/store/open-sink.js';
import { createWebhookReceiver, type DeliverySink } from '../../src/webhooks/webhook-receiver.js';
import { startWebhookServer } from '../../src/http/webhook-server.js';
import { cliError, runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { eachTarget } from './each-target.js';
import { storedFacts, truthFacts, type SessionResource } from './truth-rows.js';
import { SECRET, sign } from '../webhooks/harness.js';

/** Posts `body`, signed with the receiver's secret, to a receiver over `sink` on a real server; answers the status. */
async function deliver(sink: DeliverySink, body: string, maxBodyBytes: number): Promise<number> {
  const receiver = createWebhookReceiver({
    sink,
    secrets: { byUuid: {}, defaultSecret: SECRET },
    path: '/webhooks',
    maxBodyBytes,
  });
  const server = await startWebhookServer({ receiver, port: 0, host: '127.0.0.1', domainVerifications: {} });
  try {
    const response = await fetch(`${server.url}/webhooks`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Service-Signature': sign(SECRET, body) },
      body,
    });
    return response.status;
  } finally {
    await server.close();
  }
}

/*
 * Items with characters no target can store (U+0000, lone surrogates), served
 * by the simulator over HTTP, into every target: the crawl completes, their
 * neighbours are stored, and each one is stored with U+FFFD in its typed
 * text (docs/schema.md) and its raw text as received. A PostgreSQL `raw` of
 * type jsonb (targets made before raw became json) cannot hold the escapes
 * at all: there the item is kept aside with a one-line reason instead.
 */

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 100, rate: 2000, burst: 2000, seed: 31, poisonShare: 0.15 });
const RESOURCES: readonly SessionResource[] = ['authentications', 'fingerprints'];
const backfill = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)];

/** The substitution docs/schema.md promises, written out independently of the normalizer. */
const stored = (text: string): string => text.replaceAll('\u0000', '\ufffd').toWellFormed();

type Item = Record<string, unknown>;

type Query = (sql: string, params?: readonly unknown[]) => Promise<Record<string, unknown>[]>;

/** Whether the target keeps JSON text as is (PostgreSQL jsonb does not take \u0000 escapes). */
async function rawTakesEscapes(url: string, query: Query): Promise<boolean> {
  if (!url.startsWith('postgres')) return true;
  const [row] = await query(
    'SELECT data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ' +
      "'authentications' AND column_name = 'raw'",
  );
  return row?.data_type !== 'jsonb';
}

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** What the typed columns of a poisoned item must hold, from the item the simulator sends. */
function expectedColumns(
  item: Item,
  resource: SessionResource,
  apiVersion: '1.4' | '2',
): Record<string, string | null> {
  const textFields = (item.text_fields ?? {}) as Record<string, string>;
  const properties = item.properties as Record<string, unknown>;
  const customer = apiVersion === '1.4' ? textFields.customer_item_id! : (properties.customer_item_id as string);
  if (resource === 'fingerprints') return { customer_item_id: stored(customer) };
  const brand = properties.brand as { display?: string } | string;
  return {
    customer_item_id: stored(customer),
    identifier: stored(textFields.identifier!),
    brand_display: typeof brand === 'string' ? null : stored(brand.display!),
  };
}

async function expectPoisonHandled(url: string, sim: RunningSimulator, apiVersion: '1.4' | '2'): Promise<number> {
  const sink = await openSink(url);
  try {
    return await expectPoisonStored(url, (sql, params = []) => sink.query(sql, params), sim, apiVersion);
  } finally {
    await sink.close();
  }
}

async function expectPoisonStored(
  url: string,
  query: Query,
  sim: RunningSimulator,
  apiVersion: '1.4' | '2',
): Promise<number> {
  const keepsEscapes = await rawTakesEscapes(url, query);
  let poisoned = 0;
  let withTextFields = 0;
  for (const resource of RESOURCES) {
    const items = sim.world.truth('test-token', resource, apiVersion);
    const poison = new Set(
      items.filter((i) => sim.world.get(i.service_id as string)!.poison).map((i) => i.service_id as string),
    );
    poisoned += poison.size;
    // Every good neighbour is stored, and nothing else.
    const truth = truthFacts(sim, resource, apiVersion);
    expect(await storedFacts(query, resource)).toEqual(
      keepsEscapes ? truth : truth.filter((f) => !poison.has(f.service_id)),
    );
    for (const item of items.filter((i) => poison.has(i.service_id as string))) {
      const id = item.service_id as string;
      if (!keepsEscapes) {
        const kept = await query('SELECT reason FROM rejected_items WHERE service_id = ?', [id]);
        expect(kept).toHaveLength(1);
        expect(String(kept[0]!.reason)).toMatch(
          /^refused by the target: postgres cannot store a value \(22P0[25]\): [^\n]{1,200}$/,
        );
        continue;
      }
      const columns = expectedColumns(item, resource, apiVersion);
      const [row] = await query(
        `SELECT ${Object.keys(columns).join(', ')}, raw FROM ${resource} WHERE service_id = ?`,
        [id],
      );
      const { raw, ...typed } = row!;
      expect(typed).toEqual(columns);
      expect(columns.customer_item_id).toContain('\ufffd');
      // The item's text exactly as the service sent it, escapes and all.
      expect(text(raw)).toBe(JSON.stringify(item));
      if (item.text_fields !== null && item.text_fields !== undefined) {
        withTextFields++;
        const fields = await query('SELECT value FROM session_text_fields WHERE service_id = ? AND key = ?', [
          id,
          'note\ufffd',
        ]);
        expect(fields).toEqual([{ value: 'a\ufffdb\ufffd' }]);
      }
    }
  }
  const [refused] = await query("SELECT count(*) AS n FROM rejected_items WHERE reason LIKE 'refused%'");
  expect(Number(refused!.n)).toBe(keepsEscapes ? 0 : poisoned);
  // The text-field check above ran, on a target that stores these items.
  if (keepsEscapes) expect(withTextFields).toBeGreaterThan(0);
  return poisoned;
}

eachTarget((_dialect, target) => {
  it.each(['1.4', '2'] as const)(
    'a backfill over API %s with poison items completes; each is stored with U+FFFD, raw as sent',
    async (apiVersion) => {
      const sim = await simulator();
      const { url } = target();
      const config = writeConfig(tempDir(), { crawl: { windowSeconds: 120 * 86_400, concurrency: 4 } });
      const result = await runIvsync(backfill, {
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: url,
        IVS_CONFIG: config,
        IVS_RATE: '2000',
        IVS_API_VERSION: apiVersion,
      });
      expect(cliError(result.stderr)).toBeUndefined();
      expect(result.code).toBe(0);
      expect(await expectPoisonHandled(url, sim, apiVersion)).toBeGreaterThan(3);
    },
  );

  it(
    'a webhook delivery carrying a poison item among good ' + 'ones is answered 200 and its good items are stored',
    async () => {
      const sim = await simulator({ sessions: 10 });
      const good = [
        sim.world.addSession({ epoch: HISTORY_END - 500 }),
        sim.world.addSession({ resource: 'fingerprints', epoch: HISTORY_END - 400 }),
      ];
      const bad = sim.world.addSession({ epoch: HISTORY_END - 300, poison: true });
      const items = [good[0]!, bad, good[1]!].map(
        (s) =>
          sim.world.render(sim.world.resolve(s.serviceId)!, { viewer: null, apiVersion: '1.4', webhook: true }).item,
      );
      const body = JSON.stringify({ channel: 'alerts', webhook_uuid: 'wh-1', item_count: items.length, items });
      const { url } = target();
      const sink = await openSink(url);
      try {
        expect(await deliver(sink, body, 1_048_576)).toBe(200);
        expect(await sink.query('SELECT service_id FROM authentications ORDER BY service_id')).toEqual(
          (await rawTakesEscapes(url, (sql) => sink.query(sql)))
            ? [good[0]!.serviceId, bad.serviceId].sort().map((service_id) => ({ service_id }))
            : [{ service_id: good[0]!.serviceId }],
        );
        expect(await sink.query('SELECT service_id FROM fingerprints')).toEqual([{ service_id: good[1]!.serviceId }]);
        expect(await sink.query('SELECT count(*) AS n FROM webhook_deliveries')).toEqual([{ n: 1 }]);
        if (await rawTakesEscapes(url, (sql) => sink.query(sql))) {
          const [row] = await sink.query('SELECT customer_item_id FROM authentications WHERE service_id = ?', [
            bad.serviceId,
          ]);
          expect(row!.customer_item_id).toBe(
            stored((items[1]!.text_fields as Record<string, string>).customer_item_id!),
          );
        } else {
          expect(
            await sink.query('SELECT count(*) AS n FROM rejected_items WHERE service_id = ?', [bad.serviceId]),
          ).toEqual([{ n: 1 }]);
        }
      } finally {
        await sink.close();
      }
    },
  );
});

/*
 * Items valid as JSON that a target would refuse, or that it would store
 * unlike the others, served among good neighbours: a 300,000-character
 * service_id (PostgreSQL: 54000 index row size), an unknown key holding a
 * list nested 100,000 deep (PostgreSQL: 54001 stack depth), and a session
 * served twice on its page, an older copy first. Every target stores the
 * same: the neighbours and the checkpoints commit, the first two are kept
 * aside with their reasons, and of the pair the newer copy is stored and
 * the older kept aside as a duplicate.
 */
eachTarget((_dialect, target) => {
  it.each(['1.4', '2'] as const)(
    'API %s: a huge id, deep nesting and a duplicate on one page cost no neighbour and no checkpoint',
    async (apiVersion) => {
      const sim = await simulator({ sessions: 20, poisonShare: 0 });
      const at = HISTORY_START + 86_400 * 200;
      // Good neighbours on either side, on the same page.
      sim.world.addSession({ epoch: at - 1 });
      const huge = sim.world.injectBadItem('authentications', 'huge_id', { epoch: at });
      const deep = sim.world.injectBadItem('authentications', 'deep_nesting', { epoch: at + 1 });
      const twice = sim.world.injectBadItem('authentications', 'duplicate_on_page', { epoch: at + 2 });
      const twiceFp = sim.world.injectBadItem('fingerprints', 'duplicate_on_page', { epoch: at + 3 });
      sim.world.addSession({ epoch: at + 4 });
      const { url } = target();
      const config = writeConfig(tempDir(), { crawl: { windowSeconds: 120 * 86_400, concurrency: 2 } });
      const result = await runIvsync(backfill, {
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: url,
        IVS_CONFIG: config,
        IVS_RATE: '2000',
        IVS_API_VERSION: apiVersion,
      });
      expect(cliError(result.stderr)).toBeUndefined();
      expect(result.code).toBe(0);
      const sink = await openSink(url);
      try {
        const query: Query = (sql, params = []) => sink.query(sql, params);
        for (const resource of RESOURCES)
          expect(await storedFacts(query, resource)).toEqual(truthFacts(sim, resource, apiVersion));
        const windows = await query('SELECT status, count(*) AS n FROM sync_windows GROUP BY status');
        expect(windows.map((w) => w.status)).toEqual(['done']);
        const kept = await query('SELECT resource, service_id, reason, raw FROM rejected_items');
        expect(kept).toHaveLength(4);
        const byReason = (pattern: RegExp) => kept.filter((r) => pattern.test(String(r.reason)));
        const [tooLong] = byReason(
          /^service_id: 300000 bytes long, longer than the 1024 bytes every target can index$/,
        );
        expect(tooLong).toMatchObject({ resource: 'authentications', service_id: null });
        expect(JSON.parse(text(tooLong!.raw)).service_id).toBe(huge.serviceId.padEnd(300_000, 'x'));
        const [tooDeep] = byReason(/^\(item\): nested more than 128 levels deep/);
        expect(tooDeep).toMatchObject({ resource: 'authentications', service_id: deep.serviceId });
        // Kept as one JSON string holding the item's text, which every target's json column takes.
        expect(JSON.parse(text(tooDeep!.raw))).toMatch(/^\{.*"nested":\[{100000}\]{100000}/s);
        const duplicates = byReason(/^duplicate: /);
        expect(duplicates.map((r) => [r.resource, r.service_id]).sort()).toEqual([
          ['authentications', twice.serviceId],
          ['fingerprints', twiceFp.serviceId],
        ]);
        // The older copy is the one kept aside; the stored row is the newer one.
        for (const r of duplicates)
          expect((JSON.parse(text(r.raw)) as { status: { result: { final: boolean } } }).status.result.final).toBe(
            false,
          );
        const [row] = await query('SELECT result_final FROM authentications WHERE service_id = ?', [twice.serviceId]);
        expect(Boolean(row!.result_final)).toBe(true);
      } finally {
        await sink.close();
      }
    },
  );

  it(
    'a webhook delivery with a huge id and a 100,000-deep item among good ones is answered 200; the good one is ' +
      'stored',
    async () => {
      const sim = await simulator({ sessions: 10, poisonShare: 0 });
      const good = sim.world.addSession({ epoch: HISTORY_END - 500 });
      const huge = sim.world.injectBadItem('authentications', 'huge_id', { epoch: HISTORY_END - 400 });
      const deep = sim.world.injectBadItem('authentications', 'deep_nesting', { epoch: HISTORY_END - 300 });
      const items = [good, huge, deep].map(
        (s) =>
          sim.world.render(sim.world.resolve(s.serviceId)!, { viewer: null, apiVersion: '1.4', webhook: true }).item,
      );
      const body = withDeepNesting(
        JSON.stringify({ channel: 'alerts', webhook_uuid: 'wh-1', item_count: items.length, items }),
      );
      const { url } = target();
      const sink = await openSink(url);
      try {
        expect(await deliver(sink, body, 4_194_304)).toBe(200);
        expect(await sink.query('SELECT service_id FROM authentications')).toEqual([{ service_id: good.serviceId }]);
        const kept = await sink.query('SELECT service_id, reason FROM rejected_items ORDER BY reason');
        expect(kept.map((r) => [r.service_id, String(r.reason).slice(0, 20)])).toEqual([
          [deep.serviceId, '(item): nested more '],
          [null, 'service_id: 300000 b'],
        ]);
        expect(await sink.query('SELECT count(*) AS n FROM webhook_deliveries')).toEqual([{ n: 1 }]);
      } finally {
        await sink.close();
      }
    },
  );
});
