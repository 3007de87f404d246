import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { loadConfig } from '../../src/config/load-config.js';

const EXAMPLE = new URL('../../config/ivsync.example.json', import.meta.url).pathname;

/** Every member of the file as a dotted path, sections one level deep. */
function memberPaths(value: object): string[] {
  return Object.entries(value).flatMap(([key, inner]) =>
    inner !== null &&
    typeof inner === 'object' &&
    !Array.isArray(inner) &&
    key !== 'paths' &&
    key !== 'secrets' &&
    key !== 'secret'
      ? Object.keys(inner).map((k) => `${key}.${k}`)
      : [key],
  );
}

describe('config/ivsync.example.json', () => {
  it('loads, and lists every member that has a default', () => {
    expect(() => loadConfig({ flags: { config: EXAMPLE }, env: {}, clock: Date.now })).not.toThrow();
    const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as object;
    const withDefault = memberPaths(JSON.parse(JSON.stringify(DEFAULTS)) as object);
    expect(withDefault.filter((p) => !memberPaths(example).includes(p))).toEqual([]);
  });
});
