import { expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import type { Cursor } from '../../src/api/cursor.js';
import { auth, authWindow, batch, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

const query = { account: 'default', resource: 'authentications', apiVersion: '1.4' } as const;
const CURSOR_JSON = '20261123120000_cursor-json';

forEachTarget((_dialect, ctx) => {
  it('a checkpoint keeps the cursor in the shape the service sent it', async () => {
    const sink = await ctx.open();
    await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
    const shapes: Cursor[] = [
      ['1789000000', 's-1', 'h'],
      '["looks","like","an","array"]',
      { after: 's-1', n: 2 },
      'plain',
    ];
    await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: t(1) });
    for (const [i, cursor] of shapes.entries()) {
      await sink.commitPage({
        key: authWindow,
        batch: batch([auth(`a${i}`)]),
        nextCursor: cursor,
        done: false,
        now: t(2 + i),
      });
      const [w] = await sink.listWindows(query);
      expect(w!.cursor).toEqual(cursor);
    }
    // A group commit keeps the last page's cursor.
    await sink.commitPages([
      { key: authWindow, batch: batch([auth('g1')]), nextCursor: ['g', '1'], done: false, now: t(10) },
      { key: authWindow, batch: batch([auth('g2')]), nextCursor: ['g', '2'], done: false, now: t(11) },
    ]);
    const [w] = await sink.listWindows(query);
    expect(w).toMatchObject({ status: 'running', cursor: ['g', '2'], pages: shapes.length + 2 });
    const [row] = await sink.query('SELECT cursor FROM sync_windows');
    expect(row!.cursor).toBe('["g","2"]');
  });

  it('the migration quotes the plain string cursors of an older target, so they resume unchanged', async () => {
    const sink = await ctx.open();
    await sink.planWindows([{ ...authWindow, windowEnd: 2_000 }]);
    await sink.startPass(authWindow, { passFrom: 0, passTo: 2_000, startedAt: t(1) });
    // What an older ivsync left: its cursor as plain text (one that JSON would misread, too), and no record of the
    // migration.
    const old = 'eyJ"quoted\\back"slash';
    await sink.query('UPDATE sync_windows SET cursor = ? RETURNING window_start', [old]);
    await sink.query('DELETE FROM knex_migrations WHERE name = ? RETURNING name', [CURSOR_JSON]);
    await sink.close();

    const again = await ctx.open();
    const [w] = await again.listWindows(query);
    expect(w!.cursor).toBe(old);
    expect((await again.query('SELECT name FROM knex_migrations ORDER BY id')).map((m) => m.name).sort()).toEqual(
      MIGRATIONS.map((m) => m.name).sort(),
    );
    // Migrating again leaves the quoted cursor alone.
    await again.migrate();
    const [same] = await again.listWindows(query);
    expect(same!.cursor).toBe(old);
  });
});
