import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, endOfPages, queryHash } from '../../src/simulator/cursor.js';
import { decideFault, parseFaultSpec, type FaultSpec } from '../../src/simulator/fault-spec.js';
import { canonicalText } from '../../src/simulator/filter-match.js';
import { isoFromMicros } from '../../src/simulator/iso-time.js';
import { createRandom } from '../../src/simulator/prng.js';
import { parseSearchRequest } from '../../src/simulator/search-request.js';
import { TokenBucket } from '../../src/simulator/token-bucket.js';
import { World } from '../../src/simulator/world.js';

describe('parseFaultSpec', () => {
  it.each<[string, FaultSpec]>([
    ['', {}],
    ['500=0.05', { '500': 0.05 }],
    [
      '500=0.05,reset=0.02,truncate=0.02,slow=0.01:3000,429=0.02',
      { '500': 0.05, reset: 0.02, truncate: 0.02, slow: { probability: 0.01, ms: 3000 }, '429': 0.02 },
    ],
    [' reset=1 ', { reset: 1 }],
  ])('%j', (text, expected) => {
    expect(parseFaultSpec(text)).toEqual(expected);
  });

  it.each([
    ['boom=0.1', /unknown kind "boom"/],
    ['500', /expected kind=probability/],
    ['500=2', /between 0 and 1/],
    ['slow=0.1', /slow needs a delay/],
    ['500=0.1:30', /only slow takes a delay/],
    ['500=0.6,reset=0.6', /more than 1/],
  ])('%s is refused', (text, message) => {
    expect(() => parseFaultSpec(text)).toThrow(message);
  });
});

describe('decideFault', () => {
  it('never faults with an empty spec, always with probability 1, in proportion otherwise', () => {
    const random = createRandom(5);
    for (let i = 0; i < 100; i++) expect(decideFault({}, random).kind).toBe('none');
    expect(decideFault({ slow: { probability: 1, ms: 7 } }, random)).toEqual({ kind: 'slow', ms: 7 });
    let hits = 0;
    for (let i = 0; i < 10_000; i++) if (decideFault({ '500': 0.2 }, random).kind === '500') hits++;
    expect(hits).toBeGreaterThan(1700);
    expect(hits).toBeLessThan(2300);
  });
});

describe('TokenBucket', () => {
  it.each([
    // rate, burst, steps of [advance ms, expected take()]
    [10, 10, [...Array<[number, boolean]>(10).fill([0, true]), [0, false], [100, true], [0, false]]],
    [
      2,
      1,
      [
        [0, true],
        [0, false],
        [499, false],
        [1, true],
      ],
    ],
    [
      5,
      3,
      [
        [0, true],
        [0, true],
        [0, true],
        [0, false],
        [10_000, true],
        [0, true],
        [0, true],
        [0, false],
      ],
    ],
  ] as [number, number, [number, boolean][]][])('rate %i burst %i', (rate, burst, steps) => {
    let now = 0;
    const bucket = new TokenBucket(rate, burst, () => now);
    steps.forEach(([advance, expected], i) => {
      now += advance;
      expect(bucket.take(), `step ${i}`).toBe(expected);
    });
  });
});

describe('cursor', () => {
  it('round-trips and refuses another query or garbage', () => {
    const hash = queryHash(['alice', 'authentications']);
    const cursor = encodeCursor({ micros: 1_789_000_000_123_456, serviceId: 'ABC' }, hash);
    expect(decodeCursor(cursor, hash)).toEqual({ micros: 1_789_000_000_123_456, serviceId: 'ABC' });
    expect(decodeCursor(cursor, queryHash(['alice', 'fingerprints']))).toBeNull();
    expect(decodeCursor('not-a-cursor', hash)).toBeNull();
    expect(decodeCursor(Buffer.from('[1,2]').toString('base64url'), hash)).toBeNull();
  });

  it('in the array style is three strings, taken back only as that array', () => {
    const hash = queryHash(['alice', 'authentications']);
    const position = { micros: 1_789_000_000_123_456, serviceId: 'ABC' };
    const cursor = encodeCursor(position, hash, 'array');
    expect(cursor).toEqual(['1789000000123456', 'ABC', hash]);
    expect(decodeCursor(cursor, hash, 'array')).toEqual(position);
    expect(decodeCursor([...cursor], hash, 'array')).toEqual(position);
    // Sent back in another shape: as its JSON text, as the string style, or cut short.
    expect(decodeCursor(JSON.stringify(cursor), hash, 'array')).toBeNull();
    expect(decodeCursor(encodeCursor(position, hash), hash, 'array')).toBeNull();
    expect(decodeCursor(cursor, hash, 'string')).toBeNull();
    expect(decodeCursor(cursor.slice(0, 2), hash, 'array')).toBeNull();
    expect(decodeCursor(['1.5', 'ABC', hash], hash, 'array')).toBeNull();
  });

  it('ends the array style with null or [] by query, the string style always with null', () => {
    const ends = new Set(
      Array.from({ length: 20 }, (_, i) => JSON.stringify(endOfPages(queryHash(['q', i]), 'array'))),
    );
    expect([...ends].sort()).toEqual(['[]', 'null']);
    for (let i = 0; i < 20; i++) expect(endOfPages(queryHash(['q', i]), 'string')).toBeNull();
  });
});

describe('canonicalText', () => {
  it.each([
    ['ORD-001-A', 'ord 001 a', true],
    ['LV12 K0001', 'lv12k0001', true],
    ['ORD-001-A', 'ORD-001-B', false],
  ])('%s ~ %s: %s', (a, b, same) => {
    expect(canonicalText(a) === canonicalText(b)).toBe(same);
  });
});

describe('isoFromMicros', () => {
  it.each([
    [0, '1970-01-01T00:00:00.000000Z'],
    [1_789_000_000_123_456, '2026-09-10T00:26:40.123456Z'],
    [1_789_000_000_000_001, '2026-09-10T00:26:40.000001Z'],
  ])('%i -> %s', (micros, iso) => {
    expect(isoFromMicros(micros)).toBe(iso);
  });
});

describe('parseSearchRequest', () => {
  it('applies defaults', () => {
    expect(parseSearchRequest(undefined, 'authentications', 25)).toEqual({
      ok: true,
      value: { filters: [], limit: 25, returnIds: false, cursor: null, range: null, photos: false },
    });
    expect(parseSearchRequest({ limit: null }, 'fingerprints', 10)).toMatchObject({ ok: true, value: { limit: 10 } });
  });

  it('keys differ per resource', () => {
    expect(parseSearchRequest({ filters: [{ key: 'properties.brand.id', value: 'x' }] }, 'fingerprints', 25).ok).toBe(
      false,
    );
    expect(parseSearchRequest({ filters: [{ key: 'activity.mode', value: 'x' }] }, 'authentications', 25).ok).toBe(
      false,
    );
  });
});

describe('World', () => {
  const options = {
    seed: 11,
    sessions: 300,
    otherOwnerSessions: 30,
    fromSec: 1_700_000_000,
    toSec: 1_700_086_400,
    tokens: { 'test-token': 'alice' },
    otherOwner: 'mallory',
    integerEpochShare: 0.05,
    nonFinalShare: 0.1,
    rangeSemantics: { start: 'inclusive', end: 'exclusive' } as const,
    clock: () => 1_700_100_000_000,
  };

  it('is the same world for the same seed, another for another seed', () => {
    expect(new World(options).truth()).toEqual(new World(options).truth());
    expect(new World({ ...options, seed: 12 }).truth()).not.toEqual(new World(options).truth());
  });

  it('has about 70% authentications, the asked share of non-final results, and created times inside [from, to)', () => {
    const world = new World(options);
    expect(world.count('alice')).toBe(300);
    expect(world.count('alice', 'authentications')).toBe(210);
    expect(world.count('mallory')).toBe(30);
    const items = world.truth();
    const nonFinal = items.filter((i) => !(i.status as { result: { final: boolean } }).result.final).length;
    expect(nonFinal).toBeGreaterThan(5);
    expect(nonFinal).toBeLessThan(45);
    for (const item of items) {
      const epoch = (item.timestamp as { epoch: number }).epoch;
      expect(epoch).toBeGreaterThanOrEqual(options.fromSec);
      expect(epoch).toBeLessThan(options.toSec);
    }
  });

  it('mutations bump update_counter and notify listeners', () => {
    const world = new World(options);
    const seen: [string, number][] = [];
    world.onChange((s) => seen.push([s.serviceId, s.updateCounter]));
    const added = world.addSession({ final: false });
    world.finalize(added.serviceId);
    world.setResult(added.serviceId, 'unidentified', true);
    const late = world.addLateUpload({ ageSeconds: 7200 });
    expect(seen).toEqual([
      [added.serviceId, 1],
      [added.serviceId, 2],
      [added.serviceId, 3],
      [late.serviceId, 1],
    ]);
    expect(late.createdMicros).toBe((1_700_100_000 - 7200) * 1e6);
    expect(world.get(added.serviceId)).toMatchObject({ resultId: 'unidentified', final: true });
    expect(world.serviceIds()[0]).toBe(added.serviceId);
  });
});
