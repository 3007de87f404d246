import { describe, expect, it } from 'vitest';
import {
  chainVersions,
  laterThan,
  versionStart,
  type HistoryRow,
  type HistoryVersion,
  type TrackedValues,
} from '../../src/store/history/history-version.js';
import { t } from './fixtures.js';

const values = (v: Partial<TrackedValues> = {}): TrackedValues => ({
  result_id: 'pending',
  result_final: false,
  flag: null,
  missing_since: null,
  update_counter: null,
  ...v,
});
const version = (validFrom: string, v: Partial<TrackedValues> = {}): HistoryVersion => ({
  ...values(v),
  account: 'default',
  valid_from: validFrom,
  source: 'search',
  api_version: '1.4',
});
const key = { resource: 'authentications' as const, serviceId: 's' };
const stored = (validFrom: string, v: Partial<TrackedValues> = {}): HistoryRow => ({
  ...version(validFrom, v),
  service_id: 's',
  resource: 'authentications',
  valid_to: null,
});

describe('versionStart', () => {
  const cases: Array<{
    name: string;
    previous: TrackedValues | null;
    next: TrackedValues;
    updated: string | null;
    expected: string;
  }> = [
    { name: 'a first version starts at creation', previous: null, next: values(), updated: t(50), expected: t(1) },
    {
      name: 'a change dated by the service',
      previous: values(),
      next: values({ flag: 'x' }),
      updated: t(50),
      expected: t(50),
    },
    {
      name: 'a change the service does not date: its observation',
      previous: values(),
      next: values({ flag: 'x' }),
      updated: null,
      expected: t(90),
    },
    {
      name: "missing_since alone: ivsync's own finding, dated by its observation",
      previous: values({ missing_since: t(80) }),
      next: values(),
      updated: t(50),
      expected: t(90),
    },
    {
      name: "missing_since and a result together: the service's change time",
      previous: values({ missing_since: t(80) }),
      next: values({ result_final: true }),
      updated: t(85),
      expected: t(85),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(
        versionStart(c.previous, c.next, { created_at: t(1), last_updated_at: c.updated, last_synced_at: t(90) }),
      ).toBe(c.expected);
    });
  }

  it('a session without created_at starts at what is known of it', () => {
    expect(versionStart(null, values(), { created_at: null, last_updated_at: null, last_synced_at: t(90) })).toBe(
      t(90),
    );
  });
});

describe('laterThan', () => {
  it('keeps a later time and moves an earlier or equal one a microsecond past the previous start', () => {
    expect(laterThan(t(5), t(4))).toBe(t(5));
    expect(laterThan(t(4), t(4))).toBe('2026-01-01T00:00:04.000001Z');
    expect(laterThan(t(3), '2026-01-01T00:00:04.999999Z')).toBe(t(5));
  });
});

describe('chainVersions', () => {
  it('a first-seen session: its versions, each closed by the next, the last current', () => {
    const { closed, added } = chainVersions(key, null, [version(t(1)), version(t(5), { flag: 'x' })]);
    expect(closed).toBeNull();
    expect(added.map((r) => [r.valid_from, r.valid_to, r.flag])).toEqual([
      [t(1), t(5), null],
      [t(5), null, 'x'],
    ]);
  });

  it('closes the stored current version at the first new start', () => {
    const { closed, added } = chainVersions(key, stored(t(1)), [version(t(7), { result_final: true })]);
    expect(closed).toMatchObject({ valid_from: t(1), valid_to: t(7), result_final: false });
    expect(added).toEqual([
      expect.objectContaining({
        service_id: 's',
        resource: 'authentications',
        valid_from: t(7),
        valid_to: null,
        result_final: true,
      }),
    ]);
  });

  it('leaves out a version that repeats the one before it', () => {
    expect(chainVersions(key, stored(t(1)), [version(t(7))])).toEqual({ closed: null, added: [] });
    const { added } = chainVersions(key, null, [version(t(1)), version(t(2)), version(t(3), { flag: 'x' })]);
    expect(added.map((r) => r.valid_from)).toEqual([t(1), t(3)]);
  });

  it('never starts a version at or before the one it follows', () => {
    const { closed, added } = chainVersions(key, stored(t(9)), [
      version(t(9), { flag: 'x' }),
      version(t(2), { flag: 'y' }),
    ]);
    expect(closed?.valid_to).toBe('2026-01-01T00:00:09.000001Z');
    expect(added.map((r) => [r.valid_from, r.valid_to])).toEqual([
      ['2026-01-01T00:00:09.000001Z', '2026-01-01T00:00:09.000002Z'],
      ['2026-01-01T00:00:09.000002Z', null],
    ]);
  });
});
