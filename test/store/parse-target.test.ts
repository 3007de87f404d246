import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { openSink } from '../../src/store/open-sink.js';
import { parseTarget, redactTarget } from '../../src/store/target/parse-target.js';

describe('parseTarget', () => {
  const cases: Array<[string, unknown]> = [
    ['sqlite:./data/ivsync.sqlite', { kind: 'sqlite', path: './data/ivsync.sqlite' }],
    ['sqlite:/abs/x.db', { kind: 'sqlite', path: '/abs/x.db' }],
    ['duckdb:out/a.duckdb', { kind: 'duckdb', path: 'out/a.duckdb' }],
    [
      'postgres://u@h:5432/db',
      {
        kind: 'postgres',
        connectionString: 'postgres://u@h:5432/db',
        schema: 'public',
        redacted: 'postgres://u@h:5432/db',
        password: null,
      },
    ],
    [
      'postgresql://u:p%40ss@h/db?schema=tenant_1&sslmode=disable',
      {
        kind: 'postgres',
        connectionString: 'postgresql://u:p%40ss@h/db?sslmode=disable',
        schema: 'tenant_1',
        redacted: 'postgresql://u:***@h/db?schema=tenant_1&sslmode=disable',
        password: 'p@ss',
      },
    ],
  ];
  for (const [target, expected] of cases) {
    it(target, () => expect(parseTarget(target)).toEqual(expected));
  }

  for (const bad of [
    'mysql://x',
    'sqlite:',
    './file.sqlite',
    'postgres://u@h/db?schema=bad-name',
    'postgres://u@h/db?schema=1x',
  ]) {
    it(`rejects ${bad}`, () => expect(() => parseTarget(bad)).toThrow(UserError));
  }

  it('names the expected forms and never the password', () => {
    expect(() => parseTarget('mysql://root:hunter2@h/db')).toThrow(
      "unknown target 'mysql://root:***@h/db': expected sqlite:PATH, duckdb:PATH or postgres://…",
    );
    expect(() => parseTarget('postgres://u:hunter2@h/db?schema=a-b')).toThrow(/^(?!.*hunter2)/s);
  });

  it('redactTarget leaves password-less targets alone', () => {
    expect(redactTarget('postgres://u@h/db')).toBe('postgres://u@h/db');
    expect(redactTarget('sqlite:a:b@c')).toBe('sqlite:a:b@c');
  });
});

describe('openSink', () => {
  it('does not echo the password of an unreachable postgres target', async () => {
    const error: unknown = await openSink('postgres://ivs:hunter2@127.0.0.1:1/db').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toContain('postgres://ivs:***@127.0.0.1:1/db');
    expect(JSON.stringify({ message: (error as Error).message, stack: (error as Error).stack })).not.toContain(
      'hunter2',
    );
  });
});
