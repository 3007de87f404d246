import { describe, expect, it } from 'vitest';
import {
  epochFromIso,
  isoFromMicros,
  isStorableIso,
  microsFromIso,
  normalizeIso,
  storableIsoFromEpoch,
  toIsoMicros,
} from '../../src/normalize/time.js';

describe('toIsoMicros', () => {
  it.each([
    [1795316777.123456, '2026-11-22T03:06:17.123456Z'],
    [1795316777, '2026-11-22T03:06:17.000000Z'],
    [1795316777.000001, '2026-11-22T03:06:17.000001Z'],
    [1795316777.999999, '2026-11-22T03:06:17.999999Z'],
    // Rounded to the microsecond, carrying into the next second.
    [1795316777.9999995, '2026-11-22T03:06:18.000000Z'],
    [0, '1970-01-01T00:00:00.000000Z'],
    [-0.5, '1969-12-31T23:59:59.500000Z'],
    [951782400.25, '2000-02-29T00:00:00.250000Z'],
  ])('%s -> %s', (epoch, iso) => {
    expect(toIsoMicros(epoch)).toBe(iso);
  });

  it('refuses what is not a finite number', () => {
    expect(() => toIsoMicros(Number.NaN)).toThrow(RangeError);
    expect(() => toIsoMicros(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe('epochFromIso and normalizeIso', () => {
  it.each([
    ['2026-11-22T03:06:17.123456Z', 1795316777.123456, '2026-11-22T03:06:17.123456Z'],
    ['2026-11-22T03:06:17Z', 1795316777, '2026-11-22T03:06:17.000000Z'],
    ['2026-11-22T03:06:17.1Z', 1795316777.1, '2026-11-22T03:06:17.100000Z'],
    ['2026-11-22T05:06:17.000007+02:00', 1795316777.000007, '2026-11-22T03:06:17.000007Z'],
    ['2026-11-22T00:36:17.5-0230', 1795316777.5, '2026-11-22T03:06:17.500000Z'],
    ['2026-11-22T12:06:17+09', 1795316777, '2026-11-22T03:06:17.000000Z'],
    ['2026-11-22 03:06:17.123456', 1795316777.123456, '2026-11-22T03:06:17.123456Z'],
    ['2026-11-22T03:06:17.1234567Z', 1795316777.123457, '2026-11-22T03:06:17.123457Z'],
    ['2026-11-22T03:06:17.9999999Z', 1795316778, '2026-11-22T03:06:18.000000Z'],
    ['2024-02-29T00:00:00Z', 1709164800, '2024-02-29T00:00:00.000000Z'],
  ])('%s', (iso, epoch, normalized) => {
    expect(epochFromIso(iso)).toBe(epoch);
    expect(normalizeIso(iso)).toBe(normalized);
  });

  it.each([
    '',
    'yesterday',
    '2026-11-22',
    '2026-13-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-11-31T00:00:00Z',
    '2026-11-22T24:00:00Z',
    '2026-11-22T03:60:00Z',
    '2026-11-22T03:06:17.Z',
    '2026-11-22T03:06:17+25:00',
    ' 2026-11-22T03:06:17Z',
  ])('rejects %j', (text) => {
    expect(epochFromIso(text)).toBeNull();
    expect(normalizeIso(text)).toBeNull();
  });
});

describe('round trips keep every microsecond', () => {
  // A deterministic spread of instants between 1970 and 2100 with arbitrary microseconds.
  const micros: number[] = [];
  let x = 123456789;
  for (let i = 0; i < 20_000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    micros.push(Math.floor((x / 2147483648) * 4102444800) * 1_000_000 + (x % 1_000_000));
  }

  it('iso -> epoch -> iso is the identity', () => {
    for (const m of micros) {
      const iso = isoFromMicros(m);
      expect(toIsoMicros(epochFromIso(iso) as number)).toBe(iso);
    }
  });

  it('epoch -> iso -> epoch is the identity at microsecond precision', () => {
    for (const m of micros) {
      const epoch = m / 1_000_000;
      expect(epochFromIso(toIsoMicros(epoch))).toBe(epoch);
      expect(microsFromIso(toIsoMicros(epoch))).toBe(m);
    }
  });
});

describe('far dates', () => {
  // Date.UTC reads years 0-99 as 1900-1999; whole seconds are exact at any year.
  it.each([
    ['0050-03-01T00:00:00.000000Z', -60_584_198_400],
    ['0000-01-01T00:00:00.000000Z', -62_167_219_200],
    ['9999-12-31T23:59:59.000000Z', 253_402_300_799],
  ])('%s', (iso, epoch) => {
    expect(epochFromIso(iso)).toBe(epoch);
    expect(toIsoMicros(epoch)).toBe(iso);
    expect(normalizeIso(iso.replace('Z', '+00:00'))).toBe(iso);
  });

  it.each([
    ['0000-12-31T23:59:59.999999Z', false],
    ['0001-01-01T00:00:00.000000Z', true],
    ['9999-12-31T23:59:59.999999Z', true],
    [isoFromMicros(253_402_300_800_000_000), false],
    ['2026-01-02T03:04:05Z', false],
  ])('%s is storable in every target: %s', (iso, storable) => {
    expect(isStorableIso(iso)).toBe(storable);
  });

  it.each([
    [-62_135_596_800, '0001-01-01T00:00:00.000000Z'],
    [-62_135_596_801, null],
    [253_402_300_799.5, '9999-12-31T23:59:59.500000Z'],
    [253_402_300_800, null],
    [1e20, null],
  ])('epoch %s is stored as %s', (epoch, iso) => {
    expect(storableIsoFromEpoch(epoch)).toBe(iso);
  });

  it('keeps microseconds through a double up to 2106', () => {
    for (const iso of ['2106-02-07T06:28:15.999999Z', '2106-02-07T06:28:15.000001Z', '1833-11-24T17:31:45.000001Z']) {
      expect(toIsoMicros(epochFromIso(iso) as number)).toBe(iso);
    }
  });
});
