import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/schema/resources.js';
import { spreadServiceId } from '../../src/simulator/id-mint.js';
import { HELD_ID_TABLES, HeldIds } from '../../src/store/drivers/duckdb/duckdb-held-ids.js';
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

  it('knows the session tables and their child tables apart, the ones a merge asks about', () => {
    expect([...HELD_ID_TABLES.sessions].sort()).toEqual([...RESOURCES].sort());
    expect([...HELD_ID_TABLES.children].sort()).toEqual([...CHILD_KINDS].sort());
  });
});
