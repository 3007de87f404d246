import { expect, it } from 'vitest';
import type { TextFieldRow } from '../../src/normalize/rows.js';
import { auth, batch, fp, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

// New sessions take each dialect's insert-only path (multi-row INSERTs, the
// DuckDB appender into the table); stored ones the upsert. These tests cross
// the boundaries between them: statement sizes, a group mixing both, and
// child rows that a new session finds already there.

const ids = (n: number, prefix: string): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);
const fields = (id: string, keys: readonly string[], value: string): TextFieldRow[] =>
  keys.map((key) => ({ service_id: id, key, value }));

forEachTarget((_dialect, ctx) => {
  // 64 rows fit one SQLite statement; 150 sessions with 3 fields each cross
  // several full statements and a partial one in both tables.
  it('writes every row of a batch larger than one statement, new and replaced alike', async () => {
    const sink = await ctx.open();
    const first = ids(150, 'a');
    await sink.mergeBatch(
      batch(
        first.map((id) =>
          auth(
            id,
            { last_synced_at: t(1), customer_item_id: `c-${id}` },
            { textFields: fields(id, ['x', 'y', 'z'], 'v1') },
          ),
        ),
      ),
    );
    const second = [...first.slice(0, 70), ...ids(80, 'b')];
    const result = await sink.mergeBatch(
      batch(
        second.map((id) =>
          auth(id, { last_synced_at: t(2), customer_item_id: `d-${id}` }, { textFields: fields(id, ['x', 'w'], 'v2') }),
        ),
      ),
    );
    expect(result).toMatchObject({ written: 150, stale: 0 });
    const [counts] = await sink.query(
      `SELECT (SELECT COUNT(*) FROM authentications) AS sessions,
              (SELECT COUNT(*) FROM authentications WHERE customer_item_id LIKE 'd-%') AS replaced,
              (SELECT COUNT(*) FROM session_text_fields) AS fields,
              (SELECT COUNT(*) FROM session_text_fields WHERE value = 'v2') AS fresh_fields`,
    );
    // 230 sessions: 80 untouched 'a' with 3 fields, 70 replaced and 80 new with 2 each.
    expect(Object.fromEntries(Object.entries(counts ?? {}).map(([k, v]) => [k, Number(v)]))).toEqual({
      sessions: 230,
      replaced: 150,
      fields: 80 * 3 + 150 * 2,
      fresh_fields: 300,
    });
    const kept = await sink.query("SELECT key FROM session_text_fields WHERE service_id = 'a0000' ORDER BY key");
    expect(kept.map((r) => r.key)).toEqual(['w', 'x']);
  });

  it('a group of pages that inserts a session and replaces it later keeps the later one', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(batch([auth('old', { last_synced_at: t(1) })]));
    const result = await sink.mergeBatch(
      batch([
        auth('new', { last_synced_at: t(2), flag: 'first' }, { textFields: fields('new', ['k'], '1') }),
        auth('old', { last_synced_at: t(2), flag: 'replaced' }),
        auth('new', { last_synced_at: t(3), flag: 'second' }, { textFields: fields('new', ['k'], '2') }),
      ]),
    );
    expect(result).toMatchObject({ written: 3, stale: 0 });
    const rows = await sink.query('SELECT service_id, flag, first_seen_at FROM authentications ORDER BY service_id');
    expect(rows.map((r) => [r.service_id, r.flag])).toEqual([
      ['new', 'second'],
      ['old', 'replaced'],
    ]);
    expect(
      (await sink.query("SELECT value FROM session_text_fields WHERE service_id = 'new'")).map((r) => r.value),
    ).toEqual(['2']);
  });

  // Children are keyed by service_id alone: a new session may find rows that
  // a session of the other resource (or a hand edit) left under its id. They
  // are replaced, not a failed transaction.
  it('a new session replaces child rows already stored under its id', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(
      batch([fp('same', { last_synced_at: t(1) }, { textFields: fields('same', ['k', 'gone'], 'fp') })]),
    );
    const result = await sink.mergeBatch(
      batch([auth('same', { last_synced_at: t(2) }, { textFields: fields('same', ['k'], 'auth') })]),
    );
    expect(result).toMatchObject({ written: 1, stale: 0 });
    const rows = await sink.query("SELECT key, value FROM session_text_fields WHERE service_id = 'same' ORDER BY key");
    expect(rows.map((r) => [r.key, r.value])).toEqual([['k', 'auth']]);
  });

  // The same id under both resources in one batch gives two child rows with
  // one key: one of them is written (the fingerprint's, the resource applied
  // last), not a failed transaction.
  it('one batch holding an id under both resources writes each child key once', async () => {
    const sink = await ctx.open();
    const result = await sink.mergeBatch(
      batch([
        fp('twin', { last_synced_at: t(1) }, { textFields: fields('twin', ['k', 'fp-only'], 'fp') }),
        auth('twin', { last_synced_at: t(1) }, { textFields: fields('twin', ['k'], 'auth') }),
      ]),
    );
    expect(result).toMatchObject({ written: 2, stale: 0 });
    const rows = await sink.query("SELECT key, value FROM session_text_fields WHERE service_id = 'twin' ORDER BY key");
    expect(rows.map((r) => [r.key, r.value])).toEqual([
      ['fp-only', 'fp'],
      ['k', 'fp'],
    ]);
  });
});
