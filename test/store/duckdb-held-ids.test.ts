import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/schema/resources.js';
import { spreadServiceId } from '../../src/simulator/id-mint.js';
import { join } from 'node:path';
import { MIGRATIONS } from '../../migrations/index.js';
import { table } from '../../src/schema/schema.js';
import { DuckdbDriver } from '../../src/store/drivers/duckdb/duckdb-driver.js';
import { FileHeldIds, HELD_ID_TABLES, HeldIds } from '../../src/store/drivers/duckdb/duckdb-held-ids.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { CHILD_KINDS } from '../../src/store/pages/orphan-children.js';

const serviceId = spreadServiceId;

describe('HeldIds', () => {
  it('never says no to an id it was given, and rarely yes to one it was not', () => {
    const held = new HeldIds(200_000);
    for (let i = 0; i < 200_000; i++) held.add(serviceId(i));
    for (let i = 0; i < 200_000; i++) expect(held.mayHold(serviceId(i))).toBe(true);
    let wrong = 0;
    for (let i = 200_000; i < 400_000; i++) if (held.mayHold(serviceId(i))) wrong++;
    // About 1 in 100,000 by design: two at the most expected here, well under one in a thousand.
    expect(wrong).toBeLessThan(200);
    expect(held.count).toBeGreaterThan(199_900);
    expect(held.full).toBe(false);
  });

  it('counts an id once however often it is added, and is full past what it was sized for', () => {
    const held = new HeldIds(0);
    for (let r = 0; r < 3; r++) for (let i = 0; i < 1_000; i++) held.add(serviceId(i));
    expect(held.count).toBe(1_000);
    for (let i = 0; i < 70_000; i++) held.add(serviceId(i));
    expect(held.full).toBe(true);
  });

  it('knows the session tables, their child tables and the versions apart, the ones a merge asks about', () => {
    expect([...HELD_ID_TABLES.sessions].sort()).toEqual([...RESOURCES].sort());
    expect([...HELD_ID_TABLES.children].sort()).toEqual([...CHILD_KINDS].sort());
    expect(HELD_ID_TABLES.versions).toEqual(['session_versions']);
  });
});

const tempDir = useTempDir();

describe('FileHeldIds', () => {
  it("knows every table's ids in one filter, and a transaction's own session rows only as sessions", async () => {
    const driver = await DuckdbDriver.open(join(tempDir(), 'held.duckdb'), () => new Date('2026-11-27T00:00:00Z'));
    try {
      await driver.migrate(MIGRATIONS);
      // Child rows whose session row is gone (deleted by hand, or stored under the other resource).
      await driver.transaction((tx) =>
        tx.write(table('session_text_fields'), [{ service_id: 'orphan', key: 'k', value: 'v' }], 'fail'),
      );
      const held = new FileHeldIds();
      await driver.transaction(async (tx) => {
        // The scan reads the child tables too: an id with child rows only may be held, as either kind.
        expect(await held.mayHold(tx, 'sessions', ['orphan', 'absent'])).toEqual(['orphan']);
        expect(await held.mayHold(tx, 'children', ['orphan', 'absent'])).toEqual(['orphan']);
        // A session this transaction inserted has no child rows for the merge to look for.
        held.wrote('authentications', [{ service_id: 'fresh' }]);
        held.wrote('session_images', [{ service_id: 'pictured' }]);
        expect(await held.mayHold(tx, 'sessions', ['fresh', 'pictured'])).toEqual(['fresh']);
        expect(await held.mayHold(tx, 'children', ['fresh', 'pictured'])).toEqual(['pictured']);
      });
      held.settle();
      // Once the transaction has ended, its ids are in the filter, as any kind.
      await driver.read(async (tx) => {
        expect(await held.mayHold(tx, 'children', ['fresh', 'pictured'])).toEqual(['fresh', 'pictured']);
      });
    } finally {
      await driver.close();
    }
  });
});
