import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { table, type TableDef } from '../../src/schema/schema.js';
import { COPY_MIN_ROWS } from '../../src/store/drivers/postgres/copy-rows.js';
import { PostgresDriver } from '../../src/store/drivers/postgres/postgres-driver.js';
import type { Row } from '../../src/store/drivers/sql-driver.js';
import { openSink } from '../../src/store/open-sink.js';
import { parseTarget } from '../../src/store/target/parse-target.js';
import { announcePostgres, postgresUp } from '../helpers/postgres.js';
import { freshTarget, type FreshTarget } from '../targets/each-target.js';

/*
 * A plain insert of many rows goes to PostgreSQL by COPY, a few rows or an
 * upsert by INSERT … json_to_recordset. Both must store what the other would:
 * the same hostile rows are written both ways, under two sets of keys, and
 * read back alike.
 */
announcePostgres('COPY tests');

const TEXT = 'tab\there, line\nbreak, cr\rreturn, back\\slash \\N, "quoted", é 😀, \\t literal';
const JSON_TEXT = JSON.stringify({ text: TEXT, list: [1, 2.5, null, true], nested: { empty: '' } });

/** Row `i` of `def`, each column of its type, with NULLs, a non-finite number and every escape COPY has. */
function hostileRow(def: TableDef, i: number, prefix: string): Row {
  const row: Record<string, unknown> = {};
  def.columns.forEach((column, c) => {
    const key = def.primaryKey.includes(column.name);
    if (!key && column.nullable !== false && (i + c) % 5 === 0) {
      row[column.name] = null;
      return;
    }
    switch (column.type) {
      case 'text':
        row[column.name] = key ? `${prefix}-${i}` : `${TEXT} ${i}`;
        break;
      case 'json':
        row[column.name] = i % 2 === 0 ? JSON_TEXT : { parsed: TEXT, i };
        break;
      case 'real':
        row[column.name] = [1.5e-7, -0, 12345.678, Number.NaN, Number.POSITIVE_INFINITY][i % 5];
        break;
      case 'integer':
        row[column.name] = key ? i : i * 1_000_003;
        break;
      case 'boolean':
        row[column.name] = i % 3 === 0;
        break;
      case 'timestamp':
        row[column.name] = `2026-01-02T03:04:${String(i % 60).padStart(2, '0')}.123456Z`;
        break;
    }
  });
  return row;
}

describe.skipIf(!postgresUp)('rows inserted by COPY', () => {
  let target: FreshTarget;
  let driver: PostgresDriver;

  beforeEach(async () => {
    target = await freshTarget('postgres');
    await (await openSink(target.url)).close();
    const parsed = parseTarget(target.url);
    if (parsed.kind !== 'postgres') throw new Error('not a postgres target');
    driver = PostgresDriver.open({ connectionString: parsed.connectionString, schema: parsed.schema, poolSize: 1 });
  });

  afterEach(async () => {
    await driver.close();
    await target.dispose();
  });

  it.each(['authentications', 'session_text_fields', 'session_versions'])(
    'are stored in %s as an INSERT stores them',
    async (name) => {
      const def = table(name);
      const count = COPY_MIN_ROWS + 7;
      const copied = Array.from({ length: count }, (_, i) => hostileRow(def, i, 'copy'));
      const inserted = Array.from({ length: count }, (_, i) => hostileRow(def, i, 'insert'));
      await driver.transaction(async (tx) => {
        await tx.write(def, copied, 'fail');
        // An upsert never goes by COPY: it is the INSERT the copy is held to.
        await tx.write(def, inserted, 'replace');
      });
      const keyed = def.primaryKey.find((k) => def.columns.find((c) => c.name === k)?.type === 'text')!;
      const read = (prefix: string) =>
        driver.read((tx) =>
          tx.all(`SELECT * FROM ${def.name} WHERE ${keyed} LIKE ? ORDER BY ${def.primaryKey.join(', ')}`, [
            `${prefix}-%`,
          ]),
        );
      const strip = (rows: Record<string, unknown>[]) =>
        rows.map((r) => {
          const out = { ...r };
          for (const k of def.primaryKey) {
            const value = out[k];
            if (typeof value === 'string') out[k] = value.replace(/^(copy|insert)-/, '');
          }
          return out;
        });
      const fromCopy = await read('copy');
      expect(fromCopy).toHaveLength(count);
      expect(strip(fromCopy)).toEqual(strip(await read('insert')));
      // Not only alike, but as written: the text came back whole.
      const text = def.columns.find((c) => c.type === 'text' && !def.primaryKey.includes(c.name));
      if (text) expect(fromCopy.map((r) => r[text.name])).toContain(`${TEXT} 1`);
    },
    30_000,
  );

  it('stores a value longer than a chunk of COPY text whole, beside short ones', async () => {
    const def = table('session_text_fields');
    // 200,000 UTF-16 units, up to 4 bytes each in UTF-8: several chunks' worth in one value.
    const long = `${TEXT} `.repeat(2_500);
    const rows = Array.from({ length: COPY_MIN_ROWS + 3 }, (_, i) => ({
      service_id: `long-${i}`,
      key: 'k',
      value: i % 10 === 3 ? `${long}${i}` : `${TEXT} ${i}`,
    }));
    await driver.transaction((tx) => tx.write(def, rows, 'fail'));
    const stored = await driver.read((tx) =>
      tx.all("SELECT service_id, value FROM session_text_fields WHERE service_id LIKE 'long-%'"),
    );
    const byId = new Map(stored.map((r) => [r.service_id, r.value]));
    expect(byId.size).toBe(rows.length);
    for (const row of rows) expect(byId.get(row.service_id)).toBe(row.value);
  });

  it('fails on a row that is there already, as the INSERT does, and the transaction stores nothing', async () => {
    const def = table('session_text_fields');
    const rows = Array.from({ length: COPY_MIN_ROWS }, (_, i) => hostileRow(def, i, 'dup'));
    await expect(
      driver.transaction(async (tx) => {
        await tx.write(def, rows.slice(0, 1), 'fail');
        await tx.write(def, rows, 'fail');
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await driver.read((tx) => tx.all(`SELECT COUNT(*) AS n FROM ${def.name}`))).toEqual([{ n: 0 }]);
  });
});
