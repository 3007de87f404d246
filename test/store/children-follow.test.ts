import { expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { executeOn } from '../helpers/execute-on.js';
import { auth, batch, fp, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

const field = (id: string, value: string) => [{ service_id: id, key: 'identifier', value }];
const warning = (id: string) => [{ service_id: id, code: 'partial', message: 'partial data', seen_at: t(1) }];

/** Child rows of `ids`, per table, as `id:value` (text fields) or ids (warnings). */
async function childRows(sink: QueryableSink, ids: readonly string[]): Promise<Record<string, string[]>> {
  const list = ids.map((id) => `'${id}'`).join(', ');
  const fields = await sink.query(
    `SELECT service_id, value FROM session_text_fields WHERE service_id IN (${list}) ORDER BY service_id`,
  );
  const warnings = await sink.query(
    `SELECT service_id FROM session_warnings WHERE service_id IN (${list}) ORDER BY service_id`,
  );
  return {
    fields: fields.map((r) => `${String(r.service_id)}:${String(r.value)}`),
    warnings: warnings.map((r) => String(r.service_id)),
  };
}

/** Three sessions with children: `a` and `b` authentications, `b` and `f` also (or only) fingerprints. */
async function stored(sink: QueryableSink): Promise<void> {
  await sink.mergeBatch(
    batch([
      auth('a', { last_synced_at: t(1) }, { textFields: field('a', 'A'), warnings: warning('a') }),
      auth('b', { last_synced_at: t(1) }, { textFields: field('b', 'B') }),
      fp('b', { last_synced_at: t(2) }, { textFields: field('b', 'B2') }),
      fp('f', { last_synced_at: t(1) }, { textFields: field('f', 'F') }),
    ]),
  );
}

// Children are keyed by service_id alone. ivsync never deletes a session row; a hand may, and its children go
// with it, by triggers (SQLite, PostgreSQL). DuckDB has no triggers: the children stay until the session comes
// back, and its commit, which looks every new id up in the child tables, replaces them. Either way a session stored
// again has only its own children.
forEachTarget((dialect, ctx) => {
  const triggers = dialect !== 'duckdb';

  it('a session row deleted by hand takes its children, unless the other session table holds its id', async () => {
    const sink = await ctx.open();
    await stored(sink);
    await sink.close();
    await executeOn(ctx.target(), ["DELETE FROM authentications WHERE service_id IN ('a', 'b')"]);
    const again = await ctx.open();
    if (triggers) expect(await childRows(again, ['a', 'b', 'f'])).toEqual({ fields: ['b:B2', 'f:F'], warnings: [] });
    await again.mergeBatch(batch([auth('a', { last_synced_at: t(5) }, { textFields: field('a', 'A5') })]));
    await again.mergeBatch(batch([auth('b', { last_synced_at: t(5) }, { textFields: field('b', 'B5') })]));
    expect(await childRows(again, ['a', 'b', 'f'])).toEqual({ fields: ['a:A5', 'b:B5', 'f:F'], warnings: [] });
  });

  it('a session whose id was changed by hand leaves no children under its old id', async () => {
    const sink = await ctx.open();
    await stored(sink);
    await sink.close();
    await executeOn(ctx.target(), [
      "UPDATE authentications SET service_id = 'a2' WHERE service_id = 'a'",
      "UPDATE authentications SET service_id = 'b2' WHERE service_id = 'b'",
    ]);
    const again = await ctx.open();
    if (triggers) expect(await childRows(again, ['a', 'b'])).toEqual({ fields: ['b:B2'], warnings: [] });
    await again.mergeBatch(batch([auth('a', { last_synced_at: t(5) })]));
    expect(await childRows(again, ['a'])).toEqual({ fields: [], warnings: [] });
  });

  if (triggers)
    it('a target whose triggers a hand dropped looks new ids up in the child tables again', async () => {
      const sink = await ctx.open();
      await stored(sink);
      await sink.close();
      const drop = (table: string) =>
        dialect === 'sqlite'
          ? `DROP TRIGGER ${table}_children_follow`
          : `DROP TRIGGER ${table}_children_follow ON ${table}`;
      await executeOn(ctx.target(), [
        drop('authentications'),
        "DELETE FROM authentications WHERE service_id IN ('a', 'b')",
      ]);
      const again = await ctx.open();
      expect(await childRows(again, ['a'])).toEqual({ fields: ['a:A'], warnings: ['a'] });
      await again.mergeBatch(batch([auth('a', { last_synced_at: t(5) }, { textFields: field('a', 'A5') })]));
      await again.mergeBatch(batch([auth('b', { last_synced_at: t(5) }, { textFields: field('b', 'B5') })]));
      expect(await childRows(again, ['a', 'b', 'f'])).toEqual({ fields: ['a:A5', 'b:B5', 'f:F'], warnings: [] });
    });

  if (dialect === 'postgres')
    it('a session table truncated by hand takes the children no session table holds', async () => {
      const sink = await ctx.open();
      await stored(sink);
      await sink.close();
      await executeOn(ctx.target(), ['TRUNCATE authentications']);
      const again = await ctx.open();
      expect(await childRows(again, ['a', 'b', 'f'])).toEqual({ fields: ['b:B2', 'f:F'], warnings: [] });
    });

  it('the migration removes children a hand left before it, and no other row', async () => {
    const before = MIGRATIONS.findIndex((m) => m.name === '20261202000000_children_follow_sessions');
    const sink = await ctx.open({ migrations: MIGRATIONS.slice(0, before) });
    await stored(sink);
    await sink.close();
    await executeOn(ctx.target(), ["DELETE FROM authentications WHERE service_id IN ('a', 'b')"]);
    const migrated = await ctx.open();
    if (triggers) expect(await childRows(migrated, ['a', 'b', 'f'])).toEqual({ fields: ['b:B2', 'f:F'], warnings: [] });
    await migrated.mergeBatch(batch([auth('a', { last_synced_at: t(5) }, { textFields: field('a', 'A5') })]));
    expect(await childRows(migrated, ['a'])).toEqual({ fields: ['a:A5'], warnings: [] });
  });
});
