import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import knexFactory from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { FatalError } from '../../src/errors.js';
import type { Dialect } from '../../src/schema/dialect.js';
import {
  DiskFullError,
  DuckdbPoolFullError,
  shortDriverMessage,
  StoreError,
  toStoreError,
  type StoreFailure,
} from '../../src/store/drivers/store-error.js';
import { POSTGRES_URL, postgresUp } from '../helpers/postgres.js';

/*
 * Each driver's own errors, raised by real statements, and what src/store
 * makes of them: a refused row, or a failed target (which must never turn
 * items into rejected ones).
 */

async function caught(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('the statement did not fail');
}

function classified(error: unknown, dialect: Dialect): StoreError {
  const converted = toStoreError(error, dialect);
  expect(converted).toBeInstanceOf(StoreError);
  const e = converted as StoreError;
  expect(e.message).not.toMatch(/\n/);
  expect(e.message.length).toBeLessThan(300);
  return e;
}

describe('SQLite errors', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT NOT NULL)');
  db.prepare('INSERT INTO t VALUES (?, ?)').run('a', 'x');
  const cases: Array<[string, () => unknown, StoreFailure, string]> = [
    [
      'a NOT NULL column left empty is the row',
      () => db.prepare('INSERT INTO t VALUES (?, ?)').run('b', null),
      'row',
      'SQLITE_CONSTRAINT_NOTNULL',
    ],
    [
      'JSON nested too deep for its functions may be the row',
      () => db.prepare('SELECT json(?)').get(`${'['.repeat(1001)}${']'.repeat(1001)}`),
      'limit',
      'SQLITE_ERROR',
    ],
    [
      'a key stored twice is not the row (the merge proves keys absent)',
      () => db.prepare('INSERT INTO t VALUES (?, ?)').run('a', 'y'),
      'target',
      'SQLITE_CONSTRAINT_PRIMARYKEY',
    ],
    [
      'a wrong statement is not the row',
      () => db.prepare('INSERT INTO nowhere VALUES (1)').run(),
      'target',
      'SQLITE_ERROR',
    ],
  ];
  it.each(cases)('%s', async (_name, work, failure, code) => {
    const e = classified(await caught(work), 'sqlite');
    expect(e.failure).toBe(failure);
    expect(e.driverCode).toBe(code);
  });

  it('a full database is the disk, said in words that tell how to resume', async () => {
    const small = new Database(':memory:');
    // The same SQLITE_FULL a full disk gives, without filling one (the tmpfs test in test/cli fills a real one).
    small.pragma('max_page_count = 2');
    const e = classified(await caught(() => small.exec(`CREATE TABLE big AS SELECT zeroblob(100000) AS b`)), 'sqlite');
    expect(e).toBeInstanceOf(DiskFullError);
    expect(e.failure).toBe('target');
    expect(e.message).toMatch(
      /^sqlite failed \(SQLITE_FULL\): the disk is full: free space .* run the same command again/,
    );
  });
});

describe('DuckDB errors', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  await c.run('CREATE TABLE t (id VARCHAR PRIMARY KEY, v VARCHAR NOT NULL, j JSON)');
  await c.run("INSERT INTO t VALUES ('a', 'x', NULL)");
  const append = async (): Promise<void> => {
    const appender = await c.createAppender('t');
    try {
      appender.appendVarchar('b');
      appender.appendNull();
      appender.appendNull();
      appender.endRow();
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  };
  const cases: Array<[string, () => Promise<unknown>, StoreFailure, string]> = [
    [
      'JSON it cannot read is the row',
      () => c.run('INSERT INTO t VALUES (?, ?, ?)', ['b', 'x', '{"a":"\\ud800"}']),
      'row',
      'Conversion Error',
    ],
    [
      'a NOT NULL column left empty is the row',
      () => c.run('INSERT INTO t VALUES (?, ?, NULL)', ['b', null]),
      'row',
      'Constraint Error',
    ],
    ['the Appender\u2019s NOT NULL is the row', append, 'row', 'Constraint Error'],
    [
      'a key stored twice is not the row',
      () => c.run("INSERT INTO t VALUES ('a', 'y', NULL)"),
      'target',
      'Constraint Error',
    ],
    ['a wrong statement is not the row', () => c.run('INSERT INTO nowhere VALUES (1)'), 'target', 'Catalog Error'],
  ];
  it.each(cases)('%s', async (_name, work, failure, code) => {
    const e = classified(await caught(work), 'duckdb');
    expect(e.failure).toBe(failure);
    expect(e.driverCode).toBe(code);
    // DuckDB quotes the value it could not read: a row never reaches a message.
    expect(e.message).not.toMatch(/Input:/);
  });
  it('a full buffer pool is the target, said in words that tell what to do instead', async () => {
    // No temp directory: what does not fit cannot be spilled, as when a checkpoint must pin it.
    const small = await DuckDBInstance.create(':memory:', { memory_limit: '4MB', temp_directory: '' });
    const s = await small.connect();
    try {
      const e = classified(
        await caught(() =>
          s.run("CREATE TABLE big AS SELECT range AS id, repeat('x', 200) || range::VARCHAR AS v FROM range(200000)"),
        ),
        'duckdb',
      );
      expect(e).toBeInstanceOf(DuckdbPoolFullError);
      expect(e.failure).toBe('target');
      expect(e.message).toMatch(
        new RegExp(
          /^duckdb failed \(Out of Memory Error\): its buffer pool is full \(.*could not allocate /.source +
            /block.*\); sync into SQLite or Postgres .*export --to duckdb:/.source,
        ),
      );
    } finally {
      s.closeSync();
      small.closeSync();
    }
  });

  it('a checkpoint that could not pin a block names the block, not the invalidated database', () => {
    // As a 2M-session backfill printed it (a checkpoint cannot be made to fail on demand without filling the pool for
    // minutes).
    const message =
      'IO Error: Checkpoint failed for database "scale". The database has been invalidated. Original error: ' +
      'failed to pin block of size 256.0 KiB (91.5 MiB/91.5 MiB used)';
    const e = classified(new Error(message), 'duckdb');
    expect(e).toBeInstanceOf(DuckdbPoolFullError);
    expect(e.driverCode).toBe('IO Error');
    expect(e.message).toBe(
      'duckdb failed (IO Error): its buffer pool is full (failed to pin block of size 256.0 KiB (91.5 MiB/91.5 ' +
        'MiB used)); sync into SQLite or Postgres and make the DuckDB file with `ivsync export --to duckdb:`',
    );
  });

  afterAll(() => {
    c.closeSync();
    instance.closeSync();
  });
});

describe.skipIf(!postgresUp)(
  'PostgreSQL errors (through knex, which puts the statement and its values in the message)',
  () => {
    const knex = knexFactory({ client: 'pg', connection: POSTGRES_URL, pool: { min: 0, max: 1 } });
    afterAll(() => knex.destroy());
    // The statements of a session table are kilobytes long: knex puts all of it in the message.
    const big = `/* ${'x'.repeat(5000)} */`;
    const cases: Array<[string, () => Promise<unknown>, StoreFailure, string]> = [
      [
        'an id too long for its index may be the row',
        () =>
          knex.transaction(async (trx) => {
            await trx.raw('CREATE TEMP TABLE ix (id text PRIMARY KEY) ON COMMIT DROP');
            await trx.raw(`INSERT INTO ix VALUES (?) ${big}`, [
              Array.from({ length: 30_000 }, (_, i) => (i * 7919).toString(36)).join(''),
            ]);
          }),
        'limit',
        '54000',
      ],
      [
        'JSON nested deeper than the server\u2019s stack may be the row',
        () => knex.raw(`SELECT ?::json ${big}`, [`${'['.repeat(100_000)}${']'.repeat(100_000)}`]),
        'limit',
        '54001',
      ],
      ['U+0000 in text is the row', () => knex.raw(`SELECT ?::text ${big}`, ['a\u0000b']), 'row', '22021'],
      [
        'a \\u0000 escape into jsonb is the row',
        () => knex.raw(`SELECT ?::jsonb ${big}`, ['{"a":"\\u0000"}']),
        'row',
        '22P05',
      ],
      [
        'a lone surrogate escape read as text is the row',
        () => knex.raw(`SELECT r.a FROM json_to_recordset(?::json) AS r(a text) ${big}`, ['[{"a":"\\ud800"}]']),
        'row',
        '22P02',
      ],
      [
        'a NOT NULL violation is the row',
        () =>
          knex.transaction(async (trx) => {
            await trx.raw('CREATE TEMP TABLE nn (a text NOT NULL, b text) ON COMMIT DROP');
            await trx.raw(`INSERT INTO nn VALUES (NULL, ?) ${big}`, ['b']);
          }),
        'row',
        '23502',
      ],
      [
        'a wrong statement is not the row',
        () => knex.raw(`SELECT * FROM nowhere_at_all WHERE a = ? ${big}`, ['b']),
        'target',
        '42P01',
      ],
    ];
    it.each(cases)('%s', async (_name, work, failure, code) => {
      const error = await caught(work);
      expect((error as Error).message.length).toBeGreaterThan(big.length);
      const e = classified(error, 'postgres');
      expect(e.failure).toBe(failure);
      expect(e.driverCode).toBe(code);
      expect(e.message).not.toMatch(/select|insert|xxxx/i);
    });

    it('a server that cannot be reached is the target', async () => {
      const quiet = {
        error: () => undefined,
        warn: () => undefined,
        debug: () => undefined,
        deprecate: () => undefined,
      };
      const down = knexFactory({
        client: 'pg',
        connection: 'postgres://postgres@127.0.0.1:1/test',
        pool: { min: 0, max: 1 },
        acquireConnectionTimeout: 2000,
        log: quiet,
      });
      try {
        const e = classified(await caught(() => down.raw('SELECT 1')), 'postgres');
        expect(e.failure).toBe('target');
        expect(e.message).toMatch(/ECONNREFUSED/);
      } finally {
        await down.destroy();
      }
    });
  },
);

describe('errors that are not the drivers\u2019', () => {
  it.each([
    new Error('splitWindow: 5 is not inside the window'),
    new TypeError('x is undefined'),
    new FatalError('DISK_FULL', 'disk full writing sqlite:x'),
    'text',
  ])('pass through unchanged: %s', (error) => {
    for (const dialect of ['sqlite', 'duckdb', 'postgres'] as const) expect(toStoreError(error, dialect)).toBe(error);
  });
});

describe('shortDriverMessage', () => {
  const cases: Array<[string, string, string]> = [
    [
      'knex: the statement and its values are cut off',
      'insert into t (a) select a from json_to_recordset($1) - [{"a":"secret row"}] - invalid byte sequence ' +
        'for encoding "UTF8": 0x00',
      'invalid byte sequence for encoding "UTF8": 0x00',
    ],
    [
      'only the first line',
      'Parser Error: syntax error at or near "SELEC"\n\nLINE 1: SELEC 1',
      'Parser Error: syntax error at or near "SELEC"',
    ],
    ['control characters blanked', 'bad \u0000 value', 'bad   value'],
    ['capped', 'e'.repeat(500), `${'e'.repeat(199)}…`],
  ];
  it.each(cases)('%s', (_name, message, short) => {
    expect(shortDriverMessage(message)).toBe(short);
  });
});
