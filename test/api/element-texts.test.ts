import { describe, expect, it } from 'vitest';
import { arrayElementTexts, itemTexts, objectMemberText } from '../../src/api/element-texts.js';

/** Items whose strings hold every character the scan must not take for structure. */
const TRICKY: unknown[] = [
  { service_id: 'A1', text_fields: { note: 'he said "hi", then left]}', path: 'C:\\dir\\' } },
  { service_id: 'A2', note: 'ends in a backslash \\', quote: '\\"', nested: [[1, [2, {}]], { a: [] }] },
  { service_id: 'A3', brackets: '[{,:}]', unicode: 'é ✓ 😀', control: '\u0001\n\t' },
  { service_id: 'A4', n: -1.5e-7, big: 1.2345678901234567e19, t: true, f: false, z: null },
  {},
  { items: [{ service_id: 'inner' }] },
];

const parsedElements = (text: string, key = 'items') =>
  arrayElementTexts(text, key)?.map((t) => JSON.parse(t) as unknown);

describe('arrayElementTexts', () => {
  it('slices each item of a compact body exactly as it was sent', () => {
    const body = JSON.stringify({ item_count: TRICKY.length, items: TRICKY, next_cursor: 'c]"' });
    expect(arrayElementTexts(body, 'items')).toEqual(TRICKY.map((item) => JSON.stringify(item)));
  });

  it('keeps the spacing of a pretty-printed body inside each item, and parses back to the item', () => {
    const body = JSON.stringify({ warnings: [{ code: 'x' }], items: TRICKY }, null, 2);
    const texts = arrayElementTexts(body, 'items');
    expect(texts?.map((t) => JSON.parse(t) as unknown)).toEqual(TRICKY);
    expect(texts?.[0]).toContain('\n');
  });

  it('keeps number spellings that re-serializing would change', () => {
    const body = '{"items":[{"epoch":1.0e3,"x":0.10}, {"epoch":17E2}]}';
    expect(arrayElementTexts(body, 'items')).toEqual(['{"epoch":1.0e3,"x":0.10}', '{"epoch":17E2}']);
  });

  it('finds the member by its name only at the top, escaped names included', () => {
    expect(parsedElements('{"data":{"items":[1]},"it\\u0065ms":[{"a":1}]}')).toEqual([{ a: 1 }]);
    expect(parsedElements('{"data":{"items":[1]}}')).toBeUndefined();
  });

  it('takes the last of two members with the name, as JSON.parse does', () => {
    expect(parsedElements('{"items":[1],"items":[2,3]}')).toEqual([2, 3]);
    expect(arrayElementTexts('{"items":[1],"items":null}', 'items')).toBeNull();
  });

  it('gives an empty list for an empty array', () => {
    expect(arrayElementTexts('{ "items" : [ ] }', 'items')).toEqual([]);
  });

  it('gives null for bodies it cannot vouch for, and never throws', () => {
    for (const body of [
      '[]',
      '"items"',
      'null',
      '{}',
      '{"items":{}}',
      '{"items":[{"a":1}',
      '{"items":[1 2]}',
      '{"items":["a]}',
      '{"a" 1}',
      '',
    ]) {
      expect(arrayElementTexts(body, 'items'), body).toBeNull();
    }
  });
});

describe('itemTexts', () => {
  it('gives the texts only when their count is the parsed count', () => {
    const body = JSON.stringify({ items: [{ a: 1 }, { b: 2 }] });
    expect(itemTexts(body, 'items', 2)).toEqual(['{"a":1}', '{"b":2}']);
    expect(itemTexts(body, 'items', 3)).toBeUndefined();
    expect(itemTexts(undefined, 'items', 2)).toBeUndefined();
  });
});

describe('objectMemberText', () => {
  it("slices a by-id answer's item exactly as it was sent", () => {
    for (const item of TRICKY) {
      const text = JSON.stringify(item, null, 1);
      expect(objectMemberText(`{"warnings":[{"code":"x"}], "item" : ${text}, "z": "\\"}"}`, 'item')).toBe(text);
    }
  });

  it('gives null unless the member is an object, the last of its name counting', () => {
    expect(objectMemberText('{"item":{"a":1},"item":{"b":2}}', 'item')).toBe('{"b":2}');
    for (const body of [
      '{"item":[{}]}',
      '{"item":{"a":1},"item":null}',
      '{"data":{"item":{}}}',
      '{"item":{"a":1}',
      '[{"item":{}}]',
      '',
    ]) {
      expect(objectMemberText(body, 'item'), body).toBeNull();
    }
  });
});
