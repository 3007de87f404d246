import type { Resource } from '../../normalize/rows.js';
import type { WindowState } from '../../store/sink.js';
import type { PassTask } from './planner.js';

/** A window paged as part of a span, with the part of it the span covers. */
export interface SpanWindow {
  window: WindowState;
  /** [lo, hi): the window's part of the span's range. */
  lo: number;
  hi: number;
}

/**
 * Adjacent windows of one resource paged by one request stream. Every window
 * ends in a partial page when paged alone; paged together, only the span
 * does. Checkpoints stay per window: the stream completes its windows newest
 * first as its pages pass below them.
 */
export interface Span {
  resource: Resource;
  /** The range requested, fixed for the stream's life: a cursor belongs to its query. */
  from: number;
  to: number;
  /** Newest first and contiguous: windows[i + 1].hi === windows[i].lo. */
  windows: SpanWindow[];
  /** Continue from this cursor (stored on the first window) instead of starting over. */
  cursor: WindowState['cursor'];
  /** How many of the first windows already began their pass in this range (1 when resumed). */
  started: number;
  /** What the stream that handed this span over had seen: its density holds nearby too. */
  seen?: { pages: number; items: number; seconds: number };
}

type Task = PassTask & { resource: Resource };

/**
 * Groups passes into spans, newest first: consecutive windows whose passes
 * touch form one span. A resumed pass keeps its stored range (its cursor
 * belongs to it) and takes the windows below it that this range covers,
 * down to the next window with a cursor of its own.
 */
export function planSpans(tasks: readonly Task[]): Span[] {
  const sorted = [...tasks].sort((a, b) =>
    a.resource === b.resource ? b.window.windowStart - a.window.windowStart : a.resource < b.resource ? -1 : 1,
  );
  const spans: Span[] = [];
  let open: Span | undefined;
  for (const task of sorted) {
    const { window } = task;
    if (task.resume) {
      open = {
        resource: task.resource,
        from: task.passFrom,
        to: task.passTo,
        windows: [
          { window, lo: Math.max(task.passFrom, window.windowStart), hi: Math.min(task.passTo, window.windowEnd) },
        ],
        cursor: window.cursor,
        started: 1,
      };
      spans.push(open);
      continue;
    }
    const last = open?.resource === task.resource ? open.windows.at(-1) : undefined;
    if (open && last && open.started === 0 && task.passTo === last.lo && task.passFrom < task.passTo) {
      open.windows.push({ window, lo: task.passFrom, hi: task.passTo });
      open.from = task.passFrom;
      continue;
    }
    if (
      open &&
      last &&
      open.started === 1 &&
      window.windowEnd === last.lo &&
      task.passFrom >= open.from &&
      task.passTo <= window.windowEnd
    ) {
      // Inside a resumed range: the stream sees the window down to the range's start.
      open.windows.push({ window, lo: Math.max(open.from, window.windowStart), hi: window.windowEnd });
      continue;
    }
    open = {
      resource: task.resource,
      from: task.passFrom,
      to: task.passTo,
      windows: [{ window, lo: task.passFrom, hi: task.passTo }],
      cursor: null,
      started: 0,
    };
    spans.push(open);
  }
  return spans;
}

/** A span over contiguous windows (newest first) that no stream has begun: it is paged from the top, no cursor. */
export function spanOver(resource: Resource, windows: SpanWindow[]): Span {
  return { resource, from: windows.at(-1)!.lo, to: windows[0]!.hi, windows, cursor: null, started: 0 };
}
