import { expect, it } from 'vitest';
import type { WindowQuery, WindowSpec } from '../../src/store/sink.js';
import { batch, t } from './fixtures.js';
import { forEachTarget } from './for-each-target.js';

const scope: WindowQuery = { account: 'default', resource: 'authentications', apiVersion: '1.4' };
const window = (windowStart: number, over: Partial<WindowQuery> = {}): WindowSpec => ({
  ...scope,
  ...over,
  windowStart,
  windowEnd: windowStart + 100,
});

forEachTarget((_dialect, ctx) => {
  it(
    'reopenWindows sets the windows that intersect a range ' + 'pending, sealed and mid-pass ones too, and counts them',
    async () => {
      const sink = await ctx.open();
      await sink.planWindows([0, 100, 200, 300].map((s) => window(s)));
      await sink.planWindows([window(100, { resource: 'fingerprints' }), window(100, { account: 'other' })]);
      for (const s of [0, 100, 200, 300]) {
        await sink.startPass(window(s), { passFrom: s, passTo: s + 100, startedAt: t(1) });
        await sink.commitPage({ key: window(s), batch: batch([]), nextCursor: 'cur', done: s !== 200, now: t(2) });
      }
      await sink.markWindow(window(100), 'sealed', null, t(3));

      const reopened = await sink.reopenWindows(
        { account: 'default', resource: 'authentications', from: 150, to: 250 },
        t(4),
      );
      expect(reopened).toEqual({
        account: 'default',
        resource: 'authentications',
        windows: 2,
        sealed: 1,
        from: 100,
        to: 300,
      });
      const rows = (await sink.listWindows(scope)).map((w) => [w.windowStart, w.status, w.cursor]);
      expect(rows).toEqual([
        [300, 'done', null],
        [200, 'pending', null],
        [100, 'pending', null],
        [0, 'done', null],
      ]);
      // Other resources and accounts are left as they were.
      expect((await sink.listWindows({ ...scope, resource: 'fingerprints' })).map((w) => w.status)).toEqual([
        'pending',
      ]);
      expect(
        await sink.reopenWindows({ account: 'default', resource: 'authentications', from: 1_000, to: 2_000 }, t(5)),
      ).toEqual({
        account: 'default',
        resource: 'authentications',
        windows: 0,
        sealed: 0,
        from: null,
        to: null,
      });
      const all = await sink.reopenWindows({ account: 'default', resource: 'authentications' }, t(6));
      expect(all).toMatchObject({ windows: 4, sealed: 0, from: 0, to: 400 });
    },
  );
});
