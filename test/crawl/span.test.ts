import { describe, expect, it } from 'vitest';
import type { WindowState } from '../../src/store/sink.js';
import { planSpans } from '../../src/crawl/engine/span.js';
import { windowState as w } from './window-state.js';

const task = (
  window: WindowState,
  passFrom = window.windowStart,
  passTo = window.windowEnd,
  resume = false,
  resource = window.resource,
) => ({ window, passFrom, passTo, resume, resource });
/** [from, to, cursor, started, [lo, hi] per window] per span. */
const shape = (tasks: Parameters<typeof planSpans>[0]) =>
  planSpans(tasks).map((s) => [
    s.resource.slice(0, 4),
    s.from,
    s.to,
    s.cursor,
    s.started,
    s.windows.map((x) => [x.lo, x.hi]),
  ]);

describe('planSpans', () => {
  it.each([
    {
      name: 'adjacent windows form one span, newest first, whatever order they come in',
      tasks: [task(w(0, 100)), task(w(200, 300)), task(w(100, 200))],
      spans: [
        [
          'auth',
          0,
          300,
          null,
          0,
          [
            [200, 300],
            [100, 200],
            [0, 100],
          ],
        ],
      ],
    },
    {
      name: 'a gap (a done window) starts another span',
      tasks: [task(w(0, 100)), task(w(200, 300)), task(w(300, 400))],
      spans: [
        [
          'auth',
          200,
          400,
          null,
          0,
          [
            [300, 400],
            [200, 300],
          ],
        ],
        ['auth', 0, 100, null, 0, [[0, 100]]],
      ],
    },
    {
      name: 'passes that cover part of a window: the newest up to now, the oldest from the sync start',
      tasks: [task(w(200, 300), 200, 250), task(w(100, 200)), task(w(0, 100), 40)],
      spans: [
        [
          'auth',
          40,
          250,
          null,
          0,
          [
            [200, 250],
            [100, 200],
            [40, 100],
          ],
        ],
      ],
    },
    {
      name: 'each resource pages apart',
      tasks: [task(w(0, 100)), task(w(0, 100, { resource: 'fingerprints' })), task(w(100, 200))],
      spans: [
        [
          'auth',
          0,
          200,
          null,
          0,
          [
            [100, 200],
            [0, 100],
          ],
        ],
        ['fing', 0, 100, null, 0, [[0, 100]]],
      ],
    },
    {
      name: 'a resumed pass keeps its range and cursor and takes the windows below it inside that range',
      tasks: [task(w(100, 200, { status: 'running', cursor: 'c' }), 0, 300, true), task(w(0, 100)), task(w(-100, 0))],
      spans: [
        [
          'auth',
          0,
          300,
          'c',
          1,
          [
            [100, 200],
            [0, 100],
          ],
        ],
        ['auth', -100, 0, null, 0, [[-100, 0]]],
      ],
    },
    {
      name: 'a resumed pass stops taking windows at the next one with a cursor of its own',
      tasks: [
        task(w(200, 300, { status: 'running', cursor: 'a' }), 0, 400, true),
        task(w(100, 200, { status: 'running', cursor: 'b' }), 0, 200, true),
        task(w(0, 100)),
      ],
      spans: [
        ['auth', 0, 400, 'a', 1, [[200, 300]]],
        [
          'auth',
          0,
          200,
          'b',
          1,
          [
            [100, 200],
            [0, 100],
          ],
        ],
      ],
    },
  ])('$name', ({ tasks, spans }) => {
    expect(shape(tasks)).toEqual(spans);
  });
});
