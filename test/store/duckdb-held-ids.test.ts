import { createHash } from 'node:crypto';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/schema/resources.js';
import { spreadServiceId } from '../../src/simulator/id-mint.js';
import {
  BUILD_AFTER_NEW,
  FileHeldIds,
  HELD_ID_TABLES,
  HeldIds,
} from '../../src/store/drivers/duckdb/duckdb-held-ids.js';
import { duckdbIdHashes } from '../../src/store/drivers/duckdb/duckdb-id-hashes.js';
import { CHILD_KINDS } from '../../src/store/pages/orphan-children.js';

const serviceId = spreadServiceId;

/** Any good 64-bit hash serves the filter's own tests: the first 8 bytes of an id's md5, as two halves. */
function hashOf(id: string): [number, number] {
  const digest = createHash('md5').update(id).digest();
  return [digest.readUInt32BE(0), digest.readUInt32BE(4)];
}
const add = (held: HeldIds, id: string) => held.add(...hashOf(id));
const mayHold = (held: HeldIds, id: string) => held.mayHold(...hashOf(id));

describe('HeldIds', () => {
  it('never says no to an id it was given, and rarely yes to one it was not', () => {
    const held = new HeldIds(200_000);
    for (let i = 0; i < 200_000; i++) add(held, serviceId(i));
    for (let i = 0; i < 200_000; i++) expect(mayHold(held, serviceId(i))).toBe(true);
    let wrong = 0;
    for (let i = 200_000; i < 400_000; i++) if (mayHold(held, serviceId(i))) wrong++;
    // About 1 in 100,000 by design: two at the most expected here, well under one in a thousand.
    expect(wrong).toBeLessThan(200);
    expect(held.count).toBeGreaterThan(199_900);
    expect(held.full).toBe(false);
  });

  it('counts an id once however often it is added, and is full past what it was sized for', () => {
    const held = new HeldIds(0);
    for (let r = 0; r < 3; r++) for (let i = 0; i < 1_000; i++) add(held, serviceId(i));
    expect(held.count).toBe(1_000);
    for (let i = 0; i < 70_000; i++) add(held, serviceId(i));
    expect(held.full).toBe(true);
  });

  it('hands its memory back when released, at once, and then says "maybe" of every id', () => {
    const held = new HeldIds(1_000_000);
    add(held, serviceId(1));
    const before = process.memoryUsage().arrayBuffers;
    held.release();
    // 1,000,000 ids at 24 bits each: 3 MB, gone without a garbage collection.
    expect(before - process.memoryUsage().arrayBuffers).toBeGreaterThanOrEqual(3_000_000);
    expect(mayHold(held, serviceId(1))).toBe(true);
    expect(mayHold(held, serviceId(2))).toBe(true);
  });

  it('knows the session tables, their child tables and the versions apart, the ones a merge asks about', () => {
    expect([...HELD_ID_TABLES.sessions].sort()).toEqual([...RESOURCES].sort());
    expect([...HELD_ID_TABLES.children].sort()).toEqual([...CHILD_KINDS].sort());
    expect(HELD_ID_TABLES.versions).toEqual(['session_versions']);
  });
});

/**
 * An in-memory DuckDB with the tables the filter reads, by their service ids only, and the filter over it; built at
 * the first question unless `buildAfterNew` says otherwise. `counted.scans`: the tables the filter's builds read.
 */
async function heldOver(rows: Partial<Record<string, string[]>>, buildAfterNew = 0) {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  for (const name of Object.values(HELD_ID_TABLES).flat()) {
    await connection.run(`CREATE TABLE ${name} (service_id VARCHAR NOT NULL)`);
    const ids = rows[name] ?? [];
    if (ids.length > 0)
      await connection.run(`INSERT INTO ${name} SELECT unnest(from_json($1, '["VARCHAR"]'))`, [JSON.stringify(ids)]);
  }
  const source = duckdbIdHashes(() => connection);
  const counted = { scans: 0 };
  const held = new FileHeldIds(
    {
      ...source,
      scan: (table, visit) => {
        counted.scans++;
        return source.scan(table, visit);
      },
    },
    undefined,
    buildAfterNew,
  );
  return { connection, held, counted };
}

describe('FileHeldIds', () => {
  it("knows every table's ids in one filter, and a transaction's own session rows only as sessions", async () => {
    // Child rows whose session row is gone (deleted by hand, or stored under the other resource).
    const { connection, held } = await heldOver({ session_text_fields: ['orphan'] });
    try {
      // The scan reads the child tables too: an id with child rows only may be held, as either kind.
      expect(await held.mayHold('sessions', ['orphan', 'absent'])).toEqual(['orphan']);
      expect(await held.mayHold('children', ['orphan', 'absent'])).toEqual(['orphan']);
      // A session this transaction inserted has no child rows for the merge to look for.
      held.wrote('authentications', [{ service_id: 'fresh' }], 'fail');
      held.wrote('session_images', [{ service_id: 'pictured' }], 'fail');
      expect(await held.mayHold('sessions', ['fresh', 'pictured'])).toEqual(['fresh']);
      expect(await held.mayHold('children', ['fresh', 'pictured'])).toEqual(['pictured']);
      held.settle();
      // Once the transaction has ended, its ids are in the filter, as any kind.
      expect(await held.mayHold('children', ['fresh', 'pictured', 'absent'])).toEqual(['fresh', 'pictured']);
    } finally {
      connection.closeSync();
    }
  });

  it('finds every id its scan met, hashed by DuckDB while it scanned and again when asked', async () => {
    const sessions = Array.from({ length: 3_000 }, (_, i) => serviceId(i));
    // Child rows as merges write them: a session's rows one after another, some sessions with none.
    const texts = sessions.slice(1_000).flatMap((id) => [id, id, id]);
    const { connection, held } = await heldOver({
      authentications: sessions.slice(0, 2_000),
      session_text_fields: texts,
    });
    try {
      expect(await held.mayHold('sessions', sessions)).toEqual(sessions);
      const others = Array.from({ length: 3_000 }, (_, i) => serviceId(10_000 + i));
      expect((await held.mayHold('sessions', others)).length).toBeLessThan(3);
    } finally {
      connection.closeSync();
    }
  });
});

describe('FileHeldIds, built only where it pays', () => {
  const TABLES_SCANNED = Object.values(HELD_ID_TABLES).flat().length;
  const stored = Array.from({ length: 50 }, (_, i) => serviceId(i));
  const fresh = (from: number, count: number) => Array.from({ length: count }, (_, i) => serviceId(from + i));
  /** A merge's transaction as the session merge runs it: asks about `ids`, inserts the absent ones as new. */
  const merge = async (held: FileHeldIds, ids: readonly string[], absent: readonly string[]) => {
    const maybe = await held.mayHold('sessions', ids);
    held.wrote(
      'authentications',
      absent.map((id) => ({ service_id: id })),
      'fail',
    );
    held.settle();
    return maybe;
  };

  it('asks nothing of the tables while the sessions asked about are stored ones, as in a sync', async () => {
    const { connection, held, counted } = await heldOver({ authentications: stored }, BUILD_AFTER_NEW);
    try {
      // Every question answered "maybe" without a scan: the merge reads the table for them, as it would anyway.
      for (let round = 0; round < 100; round++) {
        const ids = [...stored, ...fresh(10_000 + round * 2, 2)];
        expect(await merge(held, ids, ids.slice(-2))).toEqual(ids);
      }
      // 200 new sessions among 5,200 asked about: too few for the filter to pay.
      expect(counted.scans).toBe(0);
    } finally {
      connection.closeSync();
    }
  });

  it('is built once enough new sessions were inserted, and then answers "no" for new ones without a read', async () => {
    const { connection, held, counted } = await heldOver({ authentications: stored }, BUILD_AFTER_NEW);
    try {
      let next = 100_000;
      // A backfill's merges: every session asked about is new, and inserted.
      while (counted.scans === 0 && next <= 100_000 + 2 * BUILD_AFTER_NEW) {
        const ids = fresh(next, 100);
        next += 100;
        const maybe = await merge(held, ids, ids);
        if (counted.scans === 0) expect(maybe).toEqual(ids);
      }
      // Built at the first question after BUILD_AFTER_NEW new sessions: one scan of each table.
      expect(next).toBe(100_000 + BUILD_AFTER_NEW + 100);
      expect(counted.scans).toBe(TABLES_SCANNED);
      expect((await held.mayHold('sessions', fresh(500_000, 1_000))).length).toBeLessThan(3);
      expect(await held.mayHold('sessions', stored.slice(0, 5))).toEqual(stored.slice(0, 5));
    } finally {
      connection.closeSync();
    }
  });

  it('judges the recent questions: new sessions after many stored ones still build it', async () => {
    const { connection, held, counted } = await heldOver({ authentications: stored }, BUILD_AFTER_NEW);
    try {
      // A daemon's syncs: 100,000 stored sessions asked about, none new.
      for (let round = 0; round < 2_000; round++) await merge(held, stored, []);
      expect(counted.scans).toBe(0);
      // Then a background backfill: new sessions only. Halved every 20,000 asked, the syncs' count fades.
      let next = 200_000;
      while (counted.scans === 0 && next < 300_000) {
        const ids = fresh(next, 100);
        next += 100;
        await merge(held, ids, ids);
      }
      expect(counted.scans).toBe(TABLES_SCANNED);
      expect(next - 200_000).toBeLessThanOrEqual(20_000);
    } finally {
      connection.closeSync();
    }
  });

  it('is not built inside a transaction that has written rows already', async () => {
    const { connection, held, counted } = await heldOver({ authentications: stored }, 0);
    try {
      held.wrote('authentications', [{ service_id: 'fresh' }], 'fail');
      expect(await held.mayHold('children', ['fresh', 'absent'])).toEqual(['fresh', 'absent']);
      expect(counted.scans).toBe(0);
      held.settle();
      expect(await held.mayHold('children', ['absent'])).toEqual([]);
      expect(counted.scans).toBe(TABLES_SCANNED);
    } finally {
      connection.closeSync();
    }
  });
});
