import { describe, expect, it } from 'vitest';
import type { NormalizedSession } from '../../src/normalize/rows.js';
import { DUPLICATE_ON_PAGE, keepNewestCopies } from '../../src/store/pages/page-duplicates.js';
import { auth, batch, fp, t } from './fixtures.js';

/** A copy of session `id` told apart by its flag. */
const copy = (
  id: string,
  flag: string,
  counter: number | null = null,
  updated: string | null = null,
): NormalizedSession => auth(id, { flag, update_counter: counter, last_updated_at: updated, last_synced_at: t(2) });

describe('keepNewestCopies: newer never loses between two copies on one page', () => {
  it.each<[string, NormalizedSession[], string[], string[]]>([
    ['no id twice: the batch as it is', [copy('a', 'one'), copy('b', 'two')], ['one', 'two'], []],
    ['the higher update_counter wins, first on the page', [copy('a', 'new', 5), copy('a', 'old', 4)], ['new'], ['old']],
    ['the higher update_counter wins, last on the page', [copy('a', 'old', 4), copy('a', 'new', 5)], ['new'], ['old']],
    ['without counters, the later copy wins', [copy('a', 'earlier'), copy('a', 'later')], ['later'], ['earlier']],
    [
      'v2: the later last_updated_at wins',
      [copy('a', 'new', null, t(9)), copy('a', 'old', null, t(8))],
      ['new'],
      ['old'],
    ],
    [
      'three copies: one winner, two kept aside',
      [copy('a', 'x', 1), copy('a', 'z', 3), copy('a', 'y', 2)],
      ['z'],
      ['x', 'y'],
    ],
    [
      'the same id under both resources is two sessions',
      [copy('a', 'auth'), fp('a', { flag: 'fp' })],
      ['auth', 'fp'],
      [],
    ],
  ])('%s', (_name, sessions, stored, kept) => {
    const out = keepNewestCopies(batch(sessions));
    expect(out.sessions.map((s) => s.row.flag)).toEqual(stored);
    expect(out.rejected.map((r) => JSON.parse(r.raw).flag)).toEqual(kept);
    for (const r of out.rejected)
      expect(r).toMatchObject({ reason: DUPLICATE_ON_PAGE, service_id: 'a', resource: 'authentications' });
  });
});
