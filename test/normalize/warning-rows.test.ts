import { describe, expect, it } from 'vitest';
import { warningRows } from '../../src/normalize/warning-rows.js';

const AT = '2026-11-22T04:00:00.000000Z';
const parent = { code: 'fingerprint_parent_not_authorized', message: 'hidden' };

describe('warningRows', () => {
  it.each([
    { name: 'no warnings', item: undefined, response: undefined, hidden: false, codes: [] },
    {
      name: 'parent warning, parent hidden',
      item: undefined,
      response: [parent],
      hidden: true,
      codes: ['fingerprint_parent_not_authorized'],
    },
    { name: 'parent warning, parent shown', item: undefined, response: [parent], hidden: false, codes: [] },
    {
      name: 'another code, no service_id: attributed',
      item: undefined,
      response: [{ code: 'slow_images', message: 'later' }],
      hidden: false,
      codes: ['slow_images'],
    },
    {
      name: 'another code naming this session',
      item: undefined,
      response: [{ code: 'x', service_id: 'S-1' }],
      hidden: false,
      codes: ['x'],
    },
    {
      name: 'another code naming another session',
      item: undefined,
      response: [{ code: 'x', service_id: 'S-2' }],
      hidden: false,
      codes: [],
    },
    {
      name: 'entries without a code are skipped',
      item: undefined,
      response: [{ message: 'no code' }, 'text', null, { code: '' }],
      hidden: false,
      codes: [],
    },
    {
      name: 'item-level warnings',
      item: [{ code: 'a' }, { code: 'b', message: 'm' }],
      response: undefined,
      hidden: false,
      codes: ['a', 'b'],
    },
    {
      name: 'one row per code',
      item: [{ code: 'a', message: 'first' }],
      response: [{ code: 'a', message: 'second' }],
      hidden: false,
      codes: ['a'],
    },
  ])('$name', ({ item, response, hidden, codes }) => {
    const rows = warningRows('S-1', item, response, hidden, AT);
    expect(rows.map((r) => r.code)).toEqual(codes);
    for (const r of rows) expect([r.service_id, r.seen_at]).toEqual(['S-1', AT]);
  });

  it('keeps the message, the last one for a repeated code', () => {
    expect(
      warningRows('S-1', [{ code: 'a', message: 'first' }], [{ code: 'a', message: 'second' }], false, AT),
    ).toEqual([{ service_id: 'S-1', code: 'a', message: 'second', seen_at: AT }]);
    expect(warningRows('S-1', [{ code: 'a', message: 3 }], undefined, false, AT)[0]?.message).toBeNull();
  });
});
