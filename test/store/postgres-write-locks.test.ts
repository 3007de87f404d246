import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresDriver } from '../../src/store/drivers/postgres/postgres-driver.js';
import type { SqlDriver } from '../../src/store/drivers/sql-driver.js';
import { openSink } from '../../src/store/open-sink.js';
import { SqlPageStore } from '../../src/store/pages/page-store.js';
import { SqlSessionStore } from '../../src/store/pages/session-store.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import type { WindowKey } from '../../src/store/sink.js';
import { parseTarget } from '../../src/store/target/parse-target.js';
import { announcePostgres, postgresUp } from '../helpers/postgres.js';
import { freshTarget, type FreshTarget } from '../targets/each-target.js';
import { auth, batch, t } from './fixtures.js';

/*
 * Write transactions of one PostgreSQL schema overlap unless they lock the
 * same keys: one account's crawl does not wait for another's, and two
 * accounts whose tokens see the same session take turns on that session.
 * One transaction is held open just before its commit, on a connection of
 * its own, while another runs on a second pool.
 */
announcePostgres('write lock tests');

const windowOf = (account: string): WindowKey => ({
  account,
  resource: 'authentications',
  apiVersion: '1.4',
  windowStart: 0,
});

/** Releases of the transactions a test holds open, for a test that fails before it releases them. */
const releases: Array<() => void> = [];

/** A driver whose write transactions, their work done, wait for `release` before they commit. */
function holdingOpen(driver: SqlDriver): { driver: SqlDriver; held: Promise<void>; release: () => void } {
  let release!: () => void;
  let onHeld!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  releases.push(release);
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  return {
    held,
    release,
    driver: {
      dialect: driver.dialect,
      transaction: (work) =>
        driver.transaction(async (tx) => {
          const result = await work(tx);
          onHeld();
          await gate;
          return result;
        }),
      read: (work) => driver.read(work),
      migrate: (migrations) => driver.migrate(migrations),
      isMigrated: () => driver.isMigrated(),
      close: () => driver.close(),
    },
  };
}

/** Whether `promise` is still pending after `ms`. */
async function pendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const later = Symbol('later');
  const first = await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(later), ms))]);
  return first === later;
}

describe.skipIf(!postgresUp)('write transactions on one PostgreSQL schema', () => {
  let target: FreshTarget;
  let sink: QueryableSink;
  let raw: PostgresDriver;

  beforeEach(async () => {
    target = await freshTarget('postgres');
    sink = await openSink(target.url);
    const parsed = parseTarget(target.url);
    if (parsed.kind !== 'postgres') throw new Error('not a postgres target');
    raw = PostgresDriver.open({ connectionString: parsed.connectionString, schema: parsed.schema, poolSize: 1 });
    for (const account of ['a1', 'a2']) await sink.planWindows([{ ...windowOf(account), windowEnd: 2_000 }]);
  });

  afterEach(async () => {
    for (const release of releases.splice(0)) release();
    await raw.close();
    await sink.close();
    await target.dispose();
  });

  const history = (id: string) =>
    sink.query(
      'SELECT account, flag, update_counter, valid_from, valid_to FROM session_history WHERE service_id = ? ' +
        'ORDER BY valid_from',
      [id],
    );

  it("commits one account's pages while another account's commit is held open", async () => {
    const holding = holdingOpen(raw);
    const first = new SqlPageStore(holding.driver).commitPage({
      key: windowOf('a1'),
      batch: batch([auth('s-a1', { account: 'a1' })]),
      nextCursor: 'next',
      done: false,
      now: t(1),
    });
    await holding.held;
    const second = sink.commitPage({
      key: windowOf('a2'),
      batch: batch([auth('s-a2', { account: 'a2' })]),
      nextCursor: 'next',
      done: false,
      now: t(1),
    });
    expect(await pendingAfter(second, 10_000)).toBe(false);
    expect(await second).toMatchObject({ written: 1, rejected: 0 });
    expect(await sink.query('SELECT service_id FROM authentications')).toEqual([{ service_id: 's-a2' }]);
    holding.release();
    expect(await first).toMatchObject({ written: 1, rejected: 0 });
    expect(await sink.query('SELECT count(*) AS n FROM authentications')).toEqual([{ n: 2 }]);
  }, 30_000);

  it.each([
    { name: 'the older first', held: 1, waiting: 2, others: 0, outcome: { written: 1, stale: 0 } },
    { name: 'the newer first', held: 2, waiting: 1, others: 0, outcome: { written: 0, stale: 1 } },
    // Past MAX_KEY_LOCKS sessions a merge locks the schema instead (advisory-locks.ts).
    { name: 'the older first among 40', held: 1, waiting: 2, others: 39, outcome: { written: 1, stale: 0 } },
    { name: 'the newer first among 40', held: 2, waiting: 1, others: 39, outcome: { written: 0, stale: 1 } },
  ])(
    'a session two accounts see at once, $name: the second merge waits, the newer is kept, its history chained',
    async ({ held, waiting, others, outcome }) => {
      const observation = (counter: number) =>
        auth('shared', {
          account: `a${counter}`,
          update_counter: counter,
          flag: counter === 2 ? 'flagged' : null,
          last_synced_at: t(counter),
        });
      const holding = holdingOpen(raw);
      const heldBatch = [observation(held), ...Array.from({ length: others }, (_, i) => auth(`other-${i}`))];
      const first = new SqlSessionStore(holding.driver).mergeBatch(batch(heldBatch));
      await holding.held;
      const second = sink.mergeBatch(batch([observation(waiting)]));
      expect(await pendingAfter(second, 500)).toBe(true);
      holding.release();
      expect(await first).toMatchObject({ written: 1 + others, rejected: 0 });
      expect(await second).toMatchObject({ ...outcome, rejected: 0 });

      expect(
        await sink.query("SELECT account, flag, update_counter FROM authentications WHERE service_id = 'shared'"),
      ).toEqual([{ account: 'a2', flag: 'flagged', update_counter: 2 }]);
      const versions = await history('shared');
      const expected = held === 1 ? [1, 2] : [2];
      expect(versions.map((v) => v.update_counter)).toEqual(expected);
      expect(versions.at(-1)!.valid_to).toBeNull();
      for (let i = 1; i < versions.length; i++) expect(versions[i - 1]!.valid_to).toBe(versions[i]!.valid_from);
      expect(await sink.query('SELECT count(*) AS n FROM rejected_items')).toEqual([{ n: 0 }]);
    },
    30_000,
  );

  it('a pass completing while another account sees one of its sessions does not mark it missing', async () => {
    const a1 = windowOf('a1');
    await sink.startPass(a1, { passFrom: 0, passTo: 2_000, startedAt: t(0) });
    const stored = auth('shared', { account: 'a1', last_synced_at: t(1) });
    await sink.commitPage({ key: a1, batch: batch([stored]), nextCursor: null, done: true, now: t(2) });
    await sink.startPass(a1, { passFrom: 0, passTo: 2_000, startedAt: t(10) });

    // Account a2's token sees the session, unchanged, after a1's second pass started.
    const holding = holdingOpen(raw);
    const seen = new SqlSessionStore(holding.driver).mergeBatch(
      batch([auth('shared', { account: 'a2', last_synced_at: t(11) })]),
    );
    await holding.held;
    // a1's pass completes without it: it was not returned to a1, but it was seen since the pass started.
    const done = sink.commitPage({ key: a1, batch: batch([]), nextCursor: null, done: true, now: t(12) });
    expect(await pendingAfter(done, 500)).toBe(true);
    holding.release();
    expect(await seen).toMatchObject({ unchanged: 1, rejected: 0 });
    expect(await done).toMatchObject({ missing: 0 });
    expect(await sink.query('SELECT missing_since, last_synced_at FROM authentications')).toEqual([
      { missing_since: null, last_synced_at: t(11) },
    ]);
    expect((await history('shared')).map((v) => v.valid_to)).toEqual([null]);
  }, 30_000);
});
