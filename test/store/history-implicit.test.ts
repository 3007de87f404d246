import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import { revertStepsWithKnex } from '../../src/store/drivers/knex-ddl.js';
import { openSink } from '../../src/store/open-sink.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { readRow } from '../../src/store/row-reader.js';
import { table } from '../../src/schema/schema.js';
import { executeOn } from '../helpers/execute-on.js';
import { auth, batch, fp, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

/**
 * session_history is a view: session_versions stores the versions of sessions
 * that changed, and a session that never did shows the one version its row
 * tells. What the view shows must not depend on which of the two holds it.
 */

const VERSIONS = table('session_versions');
const IMPLICIT_FIRST = '20261126500000_history_implicit_first';

const shown = async (sink: QueryableSink, serviceId: string) =>
  (await sink.query('SELECT * FROM session_history WHERE service_id = ? ORDER BY valid_from', [serviceId])).map((r) =>
    readRow(VERSIONS, r),
  );

const stored = async (sink: QueryableSink): Promise<string[]> =>
  (await sink.query('SELECT service_id FROM session_versions ORDER BY service_id, valid_from')).map((r) =>
    String(r.service_id),
  );

forEachTarget((dialect, ctx) => {
  it('a session that never changed costs no stored row; its first change stores the version its row told', async () => {
    const sink = await ctx.open();
    const pending = auth('a', { result_final: false, result_id: 'pending', last_synced_at: t(10) });
    await sink.mergeBatch(batch([pending, auth('b', { last_synced_at: t(10) }), fp('f', { last_synced_at: t(10) })]));
    // An unchanged re-check and a later poll of the same values store nothing either.
    await sink.mergeBatch(batch([{ ...pending, row: { ...pending.row, last_synced_at: t(20) } }]));
    expect(await stored(sink)).toEqual([]);
    const a = await shown(sink, 'a');
    expect(a.map((r) => [r.valid_from, r.valid_to, r.result_id, r.result_final, r.source, r.api_version])).toEqual([
      [pending.row.created_at, null, 'pending', false, 'search', '1.4'],
    ]);
    expect((await shown(sink, 'f')).map((r) => [r.resource, r.valid_from])).toEqual([
      ['fingerprints', fp('f').row.created_at],
    ]);

    await sink.mergeBatch(batch([auth('a', { last_synced_at: t(30) })]));
    expect(await stored(sink)).toEqual(['a', 'a']);
    expect((await shown(sink, 'a')).map((r) => [r.valid_from, r.valid_to, r.result_id])).toEqual([
      [pending.row.created_at, t(30), 'pending'],
      [t(30), null, 'authentic'],
    ]);
    expect((await shown(sink, 'b')).length).toBe(1);
  });

  it('a rewrite by another interface or source keeps the version the row told, stored before the row', async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(batch([auth('r', { last_synced_at: t(10) }), auth('w', { last_synced_at: t(10) })]));
    // The same values seen through v2, and by a GET with photos (other item texts): no new version.
    await sink.mergeBatch(batch([auth('r', { api_version: '2', last_synced_at: t(20) })]));
    await sink.mergeBatch(batch([auth('w', { source: 'get', raw: '{"photos":1}', last_synced_at: t(20) })]));
    expect(await stored(sink)).toEqual(['r', 'w']);
    expect((await shown(sink, 'r')).map((r) => [r.valid_to, r.source, r.api_version])).toEqual([
      [null, 'search', '1.4'],
    ]);
    expect((await shown(sink, 'w')).map((r) => [r.valid_to, r.source])).toEqual([[null, 'search']]);
  });

  it(`the migration keeps only the versions no row tells (${dialect})`, async () => {
    const sink = await ctx.open();
    await sink.mergeBatch(
      batch([
        auth('a', { result_final: false, result_id: 'pending', last_synced_at: t(10) }),
        auth('b', { last_synced_at: t(10) }),
        fp('f', { last_synced_at: t(10) }),
      ]),
    );
    await sink.mergeBatch(batch([auth('a', { last_synced_at: t(30) })]));
    const before = await sink.query('SELECT * FROM session_history ORDER BY service_id, valid_from');
    await sink.close();
    // The target as the release before this migration left it: one table holding every version.
    const columns =
      'service_id, resource, account, valid_from, valid_to, result_id, result_final, flag, missing_since, ' +
      'update_counter, source, api_version';
    const rowVersions = (resource: string) =>
      `INSERT INTO session_history (${columns}) SELECT s.service_id, '${resource}', s.account, s.created_at, NULL,
         s.result_id, s.result_final, s.flag, s.missing_since, s.update_counter, s.source, s.api_version
       FROM ${resource} s WHERE NOT EXISTS (SELECT 1 FROM session_history h WHERE h.service_id = s.service_id)`;
    await executeOn(ctx.target(), [
      'DROP VIEW v_result_turnaround',
      'DROP VIEW v_session_timeline',
      'DROP VIEW session_history',
      'ALTER TABLE session_versions RENAME TO session_history',
      ...(dialect === 'postgres'
        ? ['ALTER TABLE session_history RENAME CONSTRAINT session_versions_pkey TO session_history_pkey']
        : []),
      rowVersions('authentications'),
      rowVersions('fingerprints'),
      `DELETE FROM knex_migrations WHERE name = '${IMPLICIT_FIRST}'`,
    ]);

    const again = await ctx.open();
    expect(await stored(again)).toEqual(['a', 'a']);
    expect(await again.query('SELECT * FROM session_history ORDER BY service_id, valid_from')).toEqual(before);
    const timeline = await again.query("SELECT version FROM v_session_timeline WHERE service_id = 'a'");
    expect(timeline.map((r) => Number(r.version))).toEqual([1, 2]);
  });
});

describe('the migration reverted (SQLite)', () => {
  it('writes the versions the rows told back into one table and puts the views over it again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ivsync-history-'));
    try {
      const file = join(dir, 'x.sqlite');
      const sink = await openSink(`sqlite:${file}`);
      await sink.mergeBatch(
        batch([auth('a', { result_final: false, result_id: 'pending', last_synced_at: t(10) }), auth('b'), fp('f')]),
      );
      await sink.mergeBatch(batch([auth('a', { last_synced_at: t(30) })]));
      const before = await sink.query('SELECT * FROM session_history ORDER BY service_id, valid_from');
      await sink.close();

      const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true });
      try {
        await revertStepsWithKnex(knex, MIGRATIONS.find((m) => m.name === IMPLICIT_FIRST)!.steps);
        const kinds = (await knex.raw(
          "SELECT name, type FROM sqlite_schema WHERE name IN ('session_history', 'session_versions', " +
            "'v_session_timeline', 'v_result_turnaround') ORDER BY name",
        )) as Array<{ name: string; type: string }>;
        expect(kinds).toEqual([
          { name: 'session_history', type: 'table' },
          { name: 'v_result_turnaround', type: 'view' },
          { name: 'v_session_timeline', type: 'view' },
        ]);
        expect(await knex.raw('SELECT * FROM session_history ORDER BY service_id, valid_from')).toEqual(before);
        expect(await knex.raw("SELECT version FROM v_session_timeline WHERE service_id = 'a'")).toHaveLength(2);
      } finally {
        await knex.destroy();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
