import { describe, expect, it } from 'vitest';
import { normalizeItem, UNSTORABLE_ID } from '../../src/normalize/normalize-item.js';
import { normalizeAuthConfig } from '../../src/normalize/auth-config-rows.js';
import { storableJson, storableRaw, storableText } from '../../src/normalize/storable-text.js';
import { OBSERVED_AT, v14Authentication, v14Compare, v2Authentication } from './fixtures.js';
import { accepted, ctx, rejected } from './helpers.js';

const R = '\ufffd';

describe('storableText', () => {
  const cases: Array<[string, string, string]> = [
    ['plain text stays', 'SKU-77', 'SKU-77'],
    ['U+0000 becomes U+FFFD', 'a\u0000b', `a${R}b`],
    ['a lone high surrogate becomes U+FFFD', 'a\ud800b', `a${R}b`],
    ['a lone low surrogate becomes U+FFFD', '\udfffb', `${R}b`],
    ['a high surrogate at the end', 'ab\udbff', `ab${R}`],
    ['a valid pair stays', 'bag \ud83d\udc5c', 'bag \ud83d\udc5c'],
    ['a reversed pair is two lone ones', '\udc5c\ud83d', `${R}${R}`],
    ['every one of several', '\u0000\u0000\ud800', `${R}${R}${R}`],
    ['other control characters stay', 'a\u0001\tb', 'a\u0001\tb'],
  ];
  it.each(cases)('%s', (_name, input, stored) => {
    expect(storableText(input)).toBe(stored);
  });
});

describe('storableRaw', () => {
  // The last column is the document the text stands for: the stored text must stand for it too.
  const cases: Array<[string, string, string, unknown]> = [
    [
      'JSON text as received stays, escapes included',
      '{"a":"x\\u0000y\\ud800"}',
      '{"a":"x\\u0000y\\ud800"}',
      { a: 'x\u0000y\ud800' },
    ],
    ['a literal U+0000 becomes its escape', '{"a":"x\u0000y"}', '{"a":"x\\u0000y"}', { a: 'x\u0000y' }],
    ['a literal lone surrogate becomes its escape', '{"a":"x\ud800y"}', '{"a":"x\\ud800y"}', { a: 'x\ud800y' }],
    ['a literal valid pair stays', '{"a":"\ud83d\udc5c"}', '{"a":"\ud83d\udc5c"}', { a: '\ud83d\udc5c' }],
  ];
  it.each(cases)('%s', (_name, input, stored, doc) => {
    expect(storableRaw(input)).toBe(stored);
    expect(JSON.parse(storableRaw(input))).toEqual(doc);
  });
});

describe('storableJson (the last resort for a JSON column that refuses escapes)', () => {
  it('replaces the characters in strings and keys and serializes again', () => {
    expect(storableJson('{"k\\u0000":["x\\ud800", 1, {"y":"\\u0000"}]}')).toBe(`{"k${R}":["x${R}",1,{"y":"${R}"}]}`);
  });
  it('keeps text that is not JSON as one JSON string', () => {
    expect(storableJson('not json \u0000')).toBe(JSON.stringify(`not json ${R}`));
  });
});

describe('an item with characters no target can store', () => {
  const poisonV14 = (): Record<string, unknown> => {
    const item = v14Authentication();
    item.text_fields = {
      customer_item_id: 'SKU\u000077',
      identifier: 'SD\ud8001234',
      'note\u0000': 'a\udfffb',
      'note\ufffd': 'earlier key',
    };
    (item.properties as Record<string, Record<string, unknown>>).brand!.display = 'Louis\udfff Vuitton';
    item.images = {
      photos: ['https://img.example.com/\u00001.jpg', { url: 'https://img.example.com/2.jpg', angle: 'si\ud800de' }],
    };
    item.warnings = [{ code: 'odd\u0000code', message: 'odd \ud800 message' }];
    return item;
  };

  it('is stored with U+FFFD in every typed text column and child row, and raw as received', () => {
    const text = JSON.stringify(poisonV14());
    const s = accepted('authentications', '1.4', JSON.parse(text), ctx());
    expect(s.row.customer_item_id).toBe(`SKU${R}77`);
    expect(s.row.identifier).toBe(`SD${R}1234`);
    expect(s.row.brand_display).toBe(`Louis${R} Vuitton`);
    expect(s.row.raw).toBe(text);
    // Two keys that become equal keep the last, as JSON.parse keeps the last of two equal names.
    expect(s.textFields).toEqual([
      { service_id: 'A-1001', key: 'customer_item_id', value: `SKU${R}77` },
      { service_id: 'A-1001', key: 'identifier', value: `SD${R}1234` },
      { service_id: 'A-1001', key: `note${R}`, value: 'earlier key' },
    ]);
    expect(s.images.map((i) => i.url)).toEqual([`https://img.example.com/${R}1.jpg`, 'https://img.example.com/2.jpg']);
    // Image metadata is JSON text; JSON.stringify wrote the escape.
    expect(s.images[1]!.metadata).toBe('{"angle":"si\\ud800de"}');
    expect(s.warnings).toEqual([
      { service_id: 'A-1001', code: `odd${R}code`, message: `odd ${R} message`, seen_at: OBSERVED_AT },
    ]);
  });

  it('keeps the text it was handed as raw, and serializes a parsed item with the escapes', () => {
    const item = poisonV14();
    const s = normalizeItem('authentications', '1.4', item, ctx());
    expect('row' in s && s.row.raw).toBe(JSON.stringify(item));
    expect(JSON.stringify(item)).toContain('\\u0000');
  });

  it('v2: the customer item id in properties, the brand name of a fingerprint, response warnings', () => {
    const item = v2Authentication();
    (item.properties as Record<string, unknown>).customer_item_id = 'ORD\u0000';
    const s = accepted('authentications', '2', item, ctx({ responseWarnings: [{ code: 'w', message: '\udc00' }] }));
    expect(s.row.customer_item_id).toBe(`ORD${R}`);
    expect(s.warnings.find((w) => w.code === 'w')?.message).toBe(R);
  });

  it('a parent customer item id too', () => {
    const item = v14Compare();
    (item.fingerprint_parent as Record<string, Record<string, unknown>>).text_fields!.customer_item_id = 'BAG\u0000';
    expect(accepted('fingerprints', '1.4', item, ctx()).row.parent_customer_item_id).toBe(`BAG${R}`);
  });

  it('is kept aside when its service_id holds one: a replaced id names no session', () => {
    const item = { ...v14Authentication(), service_id: 'A-\u00001' };
    const r = rejected('authentications', '1.4', item, ctx());
    expect(r.reason).toBe(UNSTORABLE_ID);
    expect(r.service_id).toBe(`A-${R}1`);
    expect(r.raw).toBe(JSON.stringify(item));
  });

  it('a rejected item keeps its raw text and gets a storable reason', () => {
    const item = v14Authentication();
    item.images = { photos: { 'x\u0000': 3 } };
    const r = rejected('authentications', '1.4', item, ctx());
    expect(r.reason).not.toContain('\u0000');
    expect(r.raw).toBe(JSON.stringify(item));
  });

  it('mirror rows (the catalog) get the same substitution', () => {
    const rows = normalizeAuthConfig(
      { config: { brands: [{ brand_id: 'b\u0000', display: { name: 'B\ud800' }, materials: [] }] } },
      'default',
      OBSERVED_AT,
    );
    expect(rows.catalog_brands[0]).toMatchObject({ brand_id: `b${R}`, name: `B${R}` });
  });
});
