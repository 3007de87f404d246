import { describe, expect, it } from 'vitest';
import { assignPage, pageCommits } from '../../src/crawl/engine/page-assignment.js';
import { auth, authWindow, batch, rejected, t } from '../store/fixtures.js';

// Three windows of a span, newest first: [200, 300), [100, 200), [0, 100).
const windows = [
  { lo: 200, hi: 300 },
  { lo: 100, hi: 200 },
  { lo: 0, hi: 100 },
];

describe('assignPage', () => {
  it.each([
    {
      name: 'a page inside the current window completes nothing',
      current: 0,
      position: 300,
      epochs: [290, 250.5, 230],
      last: false,
      windowOf: [0, 0, 0],
      doneBefore: 0,
      through: 0,
      at: 231,
    },
    {
      name: 'a page that passes below a window completes it; its items go where their epochs fall',
      current: 0,
      position: 231,
      epochs: [210, 201, 199.5, 150],
      last: false,
      windowOf: [0, 0, 1, 1],
      doneBefore: 1,
      through: 1,
      at: 151,
    },
    {
      name: 'a sparse page can pass a whole window: it completes empty',
      current: 0,
      position: 300,
      epochs: [250, 50],
      last: false,
      windowOf: [0, 2],
      doneBefore: 2,
      through: 2,
      at: 51,
    },
    {
      name: 'an item on a whole second keeps its window open: more may share that second',
      current: 1,
      position: 150,
      epochs: [120, 100],
      last: false,
      windowOf: [1, 1],
      doneBefore: 1,
      through: 1,
      at: 101,
    },
    {
      name: 'just below a window edge completes it',
      current: 1,
      position: 150,
      epochs: [120, 99.9],
      last: false,
      windowOf: [1, 2],
      doneBefore: 2,
      through: 2,
      at: 100,
    },
    {
      name: 'passing below the floor completes the span, the extra second stays with the last window',
      current: 2,
      position: 60,
      epochs: [10, -0.5],
      last: false,
      windowOf: [2, 2],
      doneBefore: 3,
      through: 2,
      at: 0,
    },
    {
      name: 'the last page completes every window left, empty ones too',
      current: 0,
      position: 300,
      epochs: [250],
      last: true,
      windowOf: [0],
      doneBefore: 3,
      through: 2,
      at: 0,
    },
    {
      name: 'items without an epoch, or above the span, go with the current window',
      current: 1,
      position: 180,
      epochs: [null, 300, 170],
      last: false,
      windowOf: [1, 1, 1],
      doneBefore: 1,
      through: 1,
      at: 171,
    },
    {
      name: 'a page with no epoch moves nothing',
      current: 1,
      position: 180,
      epochs: [null],
      last: false,
      windowOf: [1],
      doneBefore: 1,
      through: 1,
      at: 180,
    },
  ])('$name', ({ current, position, epochs, last, windowOf, doneBefore, through, at }) => {
    expect(assignPage(windows, current, position, epochs, last)).toEqual({
      windowOf,
      doneBefore,
      through,
      position: at,
    });
  });
});

describe('pageCommits', () => {
  it(
    'one commit per window the page reached: completed ones done, the last one open with the cursor, the page ' +
      'counted once',
    () => {
      const keys = windows.map((w) => ({ ...authWindow, windowStart: w.lo }));
      const sessions = [
        auth('a', { created_epoch: 210 }),
        auth('b', { created_epoch: 150 }),
        auth('c', { created_epoch: 120 }),
      ];
      const assigned = assignPage(
        windows,
        0,
        300,
        sessions.map((s) => s.row.created_epoch),
        false,
      );
      const commits = pageCommits(keys, 0, assigned, batch(sessions, [rejected('bad', t(1))]), 'next', t(1));
      expect(
        commits.map((c) => [
          c.key.windowStart,
          c.batch.sessions.map((s) => s.row.service_id),
          c.batch.rejected.length,
          c.done,
          c.nextCursor,
          c.pages,
        ]),
      ).toEqual([
        [200, ['a'], 1, true, null, 1],
        [100, ['b', 'c'], 0, false, 'next', 0],
      ]);
    },
  );
});
