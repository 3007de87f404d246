import { expect, it } from 'vitest';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { auth, authWindow, batch, fp, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

async function row(sink: QueryableSink, table: string, id: string): Promise<Record<string, unknown> | undefined> {
  const [found] = await sink.query(`SELECT * FROM ${table} WHERE service_id = ?`, [id]);
  return found;
}

async function children(sink: QueryableSink, table: string, id: string, column: string): Promise<string[]> {
  const rows = await sink.query(`SELECT ${column} AS v FROM ${table} WHERE service_id = ? ORDER BY ${column}`, [id]);
  return rows.map((r) => String(r.v));
}

// Booleans read back as 0/1 from SQLite and true/false elsewhere.
const bool = (v: unknown): boolean | null => (v === null || v === undefined ? null : Boolean(v));

interface Obs {
  counter: number | null;
  updated: string | null;
  synced: string;
}

const NEWER_WINS: Array<{ name: string; stored: Obs; incoming: Obs; wins: boolean; counter: number | null }> = [
  {
    name: 'higher counter wins',
    stored: { counter: 2, updated: null, synced: t(10) },
    incoming: { counter: 3, updated: null, synced: t(5) },
    wins: true,
    counter: 3,
  },
  {
    name: 'lower counter loses even when seen later',
    stored: { counter: 3, updated: null, synced: t(5) },
    incoming: { counter: 2, updated: null, synced: t(10) },
    wins: false,
    counter: 3,
  },
  {
    name: 'equal counters: the stored row stays',
    stored: { counter: 3, updated: null, synced: t(5) },
    incoming: { counter: 3, updated: null, synced: t(10) },
    wins: false,
    counter: 3,
  },
  {
    name: 'later observation wins without counters',
    stored: { counter: null, updated: null, synced: t(5) },
    incoming: { counter: null, updated: null, synced: t(10) },
    wins: true,
    counter: null,
  },
  {
    name: 'earlier observation loses without counters',
    stored: { counter: null, updated: null, synced: t(10) },
    incoming: { counter: null, updated: null, synced: t(5) },
    wins: false,
    counter: null,
  },
  {
    name: 'replay of the same observation is a no-op win',
    stored: { counter: null, updated: null, synced: t(5) },
    incoming: { counter: null, updated: null, synced: t(5) },
    wins: true,
    counter: null,
  },
  {
    name: 'mixed: a later poll beats a webhook row, the counter stays',
    stored: { counter: 4, updated: null, synced: t(5) },
    incoming: { counter: null, updated: null, synced: t(10) },
    wins: true,
    counter: 4,
  },
  {
    name: 'mixed: an earlier poll loses to a webhook row',
    stored: { counter: 4, updated: null, synced: t(10) },
    incoming: { counter: null, updated: null, synced: t(5) },
    wins: false,
    counter: 4,
  },
  {
    name: 'last_updated_at is the observation time when present',
    stored: { counter: null, updated: t(8), synced: t(9) },
    incoming: { counter: null, updated: t(7), synced: t(20) },
    wins: false,
    counter: null,
  },
];

forEachTarget((_dialect, ctx) => {
  it('a new session whose id already has child rows (stored under the other resource) replaces them', async () => {
    const first = await ctx.open();
    const field = (value: string) => [{ service_id: 'x1', key: 'identifier', value }];
    await first.mergeBatch(batch([auth('x1', { last_synced_at: t(1) }, { textFields: field('old') })]));
    await first.close();
    // Another process: the id comes back as a fingerprint, new to that table, with its own text field.
    const again = await ctx.open();
    await again.mergeBatch(batch([fp('x1', { last_synced_at: t(2) }, { textFields: field('new') })]));
    expect(await children(again, 'session_text_fields', 'x1', 'value')).toEqual(['new']);
  });

  it('a target opened again knows the sessions and child rows it holds: merged again, none twice', async () => {
    const first = await ctx.open();
    const textFields = (id: string) => [{ service_id: id, key: 'identifier', value: `I-${id}` }];
    const stored = ['s1', 's2', 's3'].map((id) => auth(id, { last_synced_at: t(1) }, { textFields: textFields(id) }));
    await first.mergeBatch(batch([...stored, fp('f1', { last_synced_at: t(1) })]));
    await first.close();
    const again = await ctx.open();
    const incoming = ['s2', 's4'].map((id) => auth(id, { last_synced_at: t(2) }, { textFields: textFields(id) }));
    await again.mergeBatch(batch([...incoming, fp('f1', { last_synced_at: t(2) })]));
    // And once more in the same process: rows it wrote itself are known too.
    await again.mergeBatch(batch([auth('s4', { last_synced_at: t(3) }, { textFields: textFields('s4') })]));
    const count = async (sql: string) => Number((await again.query(sql))[0]!.n);
    expect(await count('SELECT count(*) AS n FROM authentications')).toBe(4);
    expect(await count('SELECT count(DISTINCT service_id) AS n FROM authentications')).toBe(4);
    expect(await count('SELECT count(*) AS n FROM fingerprints')).toBe(1);
    expect(await count('SELECT count(*) AS n FROM session_text_fields')).toBe(4);
    expect((await row(again, 'authentications', 's4'))?.last_synced_at).toBe(t(3));
  });

  for (const c of NEWER_WINS) {
    it(`newer never loses: ${c.name}`, async () => {
      const sink = await ctx.open();
      const stored = auth('s1', {
        result_id: 'stored',
        update_counter: c.stored.counter,
        last_updated_at: c.stored.updated,
        last_synced_at: c.stored.synced,
        first_seen_at: c.stored.synced,
        source: c.stored.counter === null ? 'search' : 'webhook',
      });
      await sink.mergeBatch(batch([stored]));
      const incoming = auth('s1', {
        result_id: 'incoming',
        update_counter: c.incoming.counter,
        last_updated_at: c.incoming.updated,
        last_synced_at: c.incoming.synced,
        first_seen_at: c.incoming.synced,
        source: c.incoming.counter === null ? 'search' : 'webhook',
      });
      const result = await sink.mergeBatch(batch([incoming]));
      expect(result).toEqual({ written: c.wins ? 1 : 0, unchanged: 0, stale: c.wins ? 0 : 1, rejected: 0, missing: 0 });
      const r = await row(sink, 'authentications', 's1');
      expect(r?.result_id).toBe(c.wins ? 'incoming' : 'stored');
      expect(r?.first_seen_at).toBe(c.stored.synced);
      expect(r?.update_counter === null ? null : Number(r?.update_counter)).toBe(c.counter);
    });
  }

  it('a later poll of the same item text is unchanged: not counted as written, only marked seen', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(batch([auth('u', { result_final: false, last_synced_at: t(1), first_seen_at: t(1) })]));
    await sink.markMissing('default', 'authentications', ['u'], t(2));
    const again = await sink.mergeBatch(
      batch([auth('u', { result_final: false, last_synced_at: t(3), first_seen_at: t(3), source: 'get' })]),
    );
    expect(again).toEqual({ written: 0, unchanged: 1, stale: 0, rejected: 0, missing: 0 });
    expect(await row(sink, 'authentications', 'u')).toMatchObject({
      last_synced_at: t(3),
      missing_since: null,
      source: 'search',
      first_seen_at: t(1),
    });
    const changed = await sink.mergeBatch(batch([auth('u', { result_final: true, last_synced_at: t(4) })]));
    expect(changed).toMatchObject({ written: 1, unchanged: 0 });
  });

  it('replaying a page twice leaves the same rows', async () => {
    const sink = await ctx.open();
    const page = batch([
      auth('a', { customer_item_id: 'c1' }, { textFields: [{ service_id: 'a', key: 'identifier', value: 'X1' }] }),
      auth('b'),
    ]);
    await sink.mergeBatch(page);
    const first = await sink.query('SELECT * FROM authentications ORDER BY service_id');
    await sink.mergeBatch(page);
    expect(await sink.query('SELECT * FROM authentications ORDER BY service_id')).toEqual(first);
    expect(await children(sink, 'session_text_fields', 'a', 'key')).toEqual(['identifier']);
  });

  it(
    'a webhook item without a parent keeps the stored ' + 'parent, warnings and images, and replaces what it carries',
    async () => {
      const sink = await ctx.open();
      await sink.mergeBatch(
        batch([
          fp(
            'f1',
            {
              mode: 'compare',
              result_id: 'pending',
              result_final: false,
              parent_service_id: 'r1',
              parent_customer_item_id: 'c-r1',
              parent_accessible: false,
              last_synced_at: t(5),
              first_seen_at: t(5),
            },
            {
              textFields: [{ service_id: 'f1', key: 'customer_item_id', value: 'old' }],
              images: [{ service_id: 'f1', name: 'photo_0', url: 'https://img/0', metadata: null }],
              warnings: [
                { service_id: 'f1', code: 'fingerprint_parent_not_authorized', message: 'hidden', seen_at: t(5) },
              ],
            },
          ),
        ]),
      );
      const webhook = fp(
        'f1',
        {
          mode: 'compare',
          result_id: 'match',
          result_final: true,
          update_counter: 7,
          last_synced_at: t(10),
          first_seen_at: t(10),
          source: 'webhook',
        },
        {
          textFields: [{ service_id: 'f1', key: 'customer_item_id', value: 'new' }],
          preserve: ['parent_service_id', 'parent_customer_item_id', 'parent_relationship_type', 'parent_accessible'],
        },
      );
      expect((await sink.mergeBatch(batch([webhook]))).written).toBe(1);
      const r = await row(sink, 'fingerprints', 'f1');
      expect(r).toMatchObject({
        result_id: 'match',
        parent_service_id: 'r1',
        parent_customer_item_id: 'c-r1',
        first_seen_at: t(5),
        last_synced_at: t(10),
      });
      expect(bool(r?.parent_accessible)).toBe(false);
      expect(bool(r?.result_final)).toBe(true);
      expect(await children(sink, 'session_text_fields', 'f1', 'value')).toEqual(['new']);
      expect(await children(sink, 'session_images', 'f1', 'name')).toEqual(['photo_0']);
      expect(await children(sink, 'session_warnings', 'f1', 'code')).toEqual(['fingerprint_parent_not_authorized']);

      // A later poll sees the whole item: its (absent) warnings replace the stored ones.
      await sink.mergeBatch(batch([fp('f1', { mode: 'compare', parent_service_id: 'r1', last_synced_at: t(20) })]));
      expect(await children(sink, 'session_warnings', 'f1', 'code')).toEqual([]);
      expect(await children(sink, 'session_images', 'f1', 'name')).toEqual(['photo_0']);
    },
  );

  it('a stale poll still marks the session seen; a stale webhook does not', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(
      batch([
        auth('s', {
          update_counter: 5,
          source: 'webhook',
          result_id: 'kept',
          last_synced_at: t(10),
          last_updated_at: t(10),
        }),
      ]),
    );
    await sink.markMissing('default', 'authentications', ['s'], t(11));
    expect((await row(sink, 'authentications', 's'))?.missing_since).toBe(t(11));

    const stalePoll = auth('s', { result_id: 'old', last_updated_at: t(9), last_synced_at: t(30) });
    expect(await sink.mergeBatch(batch([stalePoll]))).toMatchObject({ written: 0, stale: 1 });
    expect(await row(sink, 'authentications', 's')).toMatchObject({
      result_id: 'kept',
      last_synced_at: t(30),
      missing_since: null,
    });

    const staleWebhook = auth('s', { result_id: 'older', update_counter: 4, source: 'webhook', last_synced_at: t(40) });
    expect(await sink.mergeBatch(batch([staleWebhook]))).toMatchObject({ written: 0, stale: 1 });
    expect(await row(sink, 'authentications', 's')).toMatchObject({ result_id: 'kept', last_synced_at: t(30) });
  });

  it('the same session twice in one group commit: decided in order', async () => {
    const sink = await ctx.open();
    await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
    await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: t(0) });
    const result = await sink.commitPages([
      {
        key: authWindow,
        batch: batch([auth('x', { result_id: 'first', last_synced_at: t(1) })]),
        nextCursor: 'c1',
        done: false,
        now: t(1),
      },
      {
        key: authWindow,
        batch: batch([auth('x', { result_id: 'second', last_synced_at: t(2) })]),
        nextCursor: 'c2',
        done: false,
        now: t(2),
      },
      {
        key: authWindow,
        batch: batch([auth('x', { result_id: 'older', last_synced_at: t(0), last_updated_at: t(0) })]),
        nextCursor: 'c3',
        done: false,
        now: t(3),
      },
    ]);
    // Each page counts its own session.
    expect(result).toEqual([
      { written: 1, unchanged: 0, stale: 0, rejected: 0, missing: 0 },
      { written: 1, unchanged: 0, stale: 0, rejected: 0, missing: 0 },
      { written: 0, unchanged: 0, stale: 1, rejected: 0, missing: 0 },
    ]);
    expect(await row(sink, 'authentications', 'x')).toMatchObject({ result_id: 'second', first_seen_at: t(0) });
    const [w] = await sink.listWindows({ account: 'default', resource: 'authentications', apiVersion: '1.4' });
    expect(w).toMatchObject({ cursor: 'c3', pages: 3, items: 3, status: 'running' });
  });

  it('applyDelivery stores the inbox row and its items once; a replay is a duplicate', async () => {
    const sink = await ctx.open();
    const delivery = {
      id: 'd1',
      webhookUuid: 'w1',
      channel: 'main',
      receivedAt: t(5),
      items: 2,
      body: '{"items":[1,2]}',
    };
    await sink.mergeBatch(
      batch([auth('b', { update_counter: 1, source: 'webhook', result_id: 'before', last_synced_at: t(4) })]),
    );
    const items = batch([
      auth('a', { update_counter: 1, source: 'webhook', last_synced_at: t(5) }),
      auth('b', { update_counter: 2, source: 'webhook', last_synced_at: t(5) }),
    ]);
    const applied = await sink.applyDelivery(delivery, items);
    expect(applied).toMatchObject({ written: 2, unchanged: 0, stale: 0, rejected: 0, missing: 0, duplicate: false });
    // The counters read in the delivery's own transaction: 'a' was not stored, 'b' had 1.
    expect([...applied.previousCounters.authentications]).toEqual([['b', 1]]);
    expect(await sink.applyDelivery(delivery, items)).toMatchObject({
      written: 0,
      stale: 0,
      rejected: 0,
      missing: 0,
      duplicate: true,
    });
    const inbox = await sink.query('SELECT id, items, applied, signature_ok FROM webhook_deliveries');
    expect(
      inbox.map((r) => ({
        ...r,
        items: Number(r.items),
        applied: Number(r.applied),
        signature_ok: bool(r.signature_ok),
      })),
    ).toEqual([{ id: 'd1', items: 2, applied: 2, signature_ok: true }]);
  });

  it('a failing page leaves neither its rows nor its checkpoint', async () => {
    const sink = await ctx.open();
    await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
    await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: t(0) });
    const broken = fp('bad');
    // A value the row's type rules out, so that the target refuses it (raw is NOT NULL).
    Reflect.set(broken.row, 'raw', null);
    await expect(
      sink.commitPage({
        key: authWindow,
        batch: batch([auth('good'), broken]),
        nextCursor: 'c1',
        done: false,
        now: t(1),
      }),
    ).rejects.toThrow();
    expect(await sink.query('SELECT service_id FROM authentications')).toEqual([]);
    const [w] = await sink.listWindows({ account: 'default', resource: 'authentications', apiVersion: '1.4' });
    expect(w).toMatchObject({ cursor: null, pages: 0, items: 0 });
    // The sink is still usable after the rollback.
    await sink.commitPage({ key: authWindow, batch: batch([auth('good')]), nextCursor: 'c1', done: false, now: t(1) });
    expect(await sink.query('SELECT service_id FROM authentications')).toEqual([{ service_id: 'good' }]);
  });
});
