import { describe, expect, it } from 'vitest';
import type { WindowState } from '../../src/store/sink.js';
import { planBackfill, planIncremental, planSeal } from '../../src/crawl/engine/planner.js';
import { windowState } from './window-state.js';

/** A window with one complete pass over it, unless `patch` says otherwise. */
function w(windowStart: number, windowEnd: number, patch: Partial<WindowState> = {}): WindowState {
  return windowState(windowStart, windowEnd, {
    status: 'done',
    pages: 1,
    items: 10,
    attempts: 1,
    passFrom: windowStart,
    passTo: windowEnd,
    passStartedAt: 'x',
    syncedTo: windowEnd,
    ...patch,
  });
}

describe('planBackfill', () => {
  it('skips done and sealed windows, resumes running ones from their cursor, restarts failed ones', () => {
    const tasks = planBackfill(
      [
        w(0, 100),
        w(100, 200, { status: 'sealed' }),
        w(200, 300, { status: 'running', cursor: 'c1', passFrom: 200, passTo: 300 }),
        w(300, 400, { status: 'failed' }),
        w(400, 500, { status: 'pending', passFrom: null, passTo: null }),
      ],
      10_000,
    );
    expect(tasks.map((t) => [t.window.windowStart, t.passFrom, t.passTo, t.resume])).toEqual([
      [200, 200, 300, true],
      [300, 300, 400, false],
      [400, 400, 500, false],
    ]);
  });
  it('never asks for the future', () => {
    const [task] = planBackfill([w(0, 100, { status: 'pending' })], 42.5);
    expect(task?.passTo).toBe(43);
  });
});

describe('planIncremental', () => {
  it('passes over [from, now) only, in windows not sealed', () => {
    const tasks = planIncremental(
      [w(0, 100, { status: 'sealed' }), w(100, 200), w(200, 300, { status: 'pending' })],
      150,
      250,
    );
    expect(tasks.map((t) => [t.window.windowStart, t.passFrom, t.passTo, t.resume])).toEqual([
      [100, 150, 200, false],
      [200, 200, 250, false],
    ]);
  });
  it('resumes an interrupted pass only when it covers what is needed now', () => {
    const stale = w(200, 300, { status: 'running', cursor: 'c', passFrom: 200, passTo: 240 });
    const fresh = w(300, 400, { status: 'running', cursor: 'c', passFrom: 300, passTo: 400 });
    expect(planIncremental([stale, fresh], 200, 500).map((t) => t.resume)).toEqual([false, true]);
  });
  it(
    'pages in full the windows outside [from, now) that ' + 'have no complete pass: reopened, failed or left running',
    () => {
      const tasks = planIncremental(
        [
          w(0, 100, { status: 'pending', passFrom: null, passTo: null }),
          w(100, 200),
          w(200, 300, { status: 'failed' }),
          w(300, 400, { status: 'running', cursor: 'c', passFrom: 300, passTo: 400 }),
          w(400, 500, { status: 'sealed' }),
          w(500, 600),
        ],
        550,
        580,
      );
      expect(tasks.map((t) => [t.window.windowStart, t.passFrom, t.passTo, t.resume])).toEqual([
        [0, 0, 100, false],
        [200, 200, 300, false],
        [300, 300, 400, true],
        [500, 550, 580, false],
      ]);
    },
  );
});

describe('planSeal', () => {
  it('seals complete windows older than the overlap with no non-final session', () => {
    const windows = [
      w(0, 100),
      w(100, 200),
      w(200, 300),
      w(300, 400, { syncedTo: 350 }),
      w(400, 500, { status: 'running' }),
    ];
    const sealed = planSeal(windows, [150], 1000, 550);
    expect(sealed.map((x) => x.windowStart)).toEqual([0, 200]);
  });
});
