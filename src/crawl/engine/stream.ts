import type { Resource } from '../../normalize/rows.js';
import type { PassSpec, WindowState } from '../../store/sink.js';
import type { Span, SpanWindow } from './span.js';

/** One request stream: a span's range paged newest first, completing its windows on the way down. */
export interface Stream {
  readonly resource: Resource;
  /** The range requested (fixed: the cursor belongs to it). */
  readonly from: number;
  readonly to: number;
  /** The windows this stream is responsible for; shrinks from below when some are handed over. */
  windows: SpanWindow[];
  /** Windows before this index began their pass in this stream: never handed over. */
  started: number;
  /** The first window not complete yet. */
  current: number;
  /** Every epoch at or above this has been seen. */
  position: number;
  cursor: WindowState['cursor'];
  /** Pages, items and epoch seconds seen: this stream's, and those of the stream it came from. */
  pages: number;
  items: number;
  covered: number;
  /** Being split: nothing more is cut from it. */
  closing: boolean;
  readonly startedAt: string;
}

/** A stream that pages `span` from the top of its first window, started at `now`. */
export function openStream(span: Span, now: string): Stream {
  return {
    ...span,
    windows: [...span.windows],
    current: 0,
    position: span.windows[0]!.hi,
    pages: span.seen?.pages ?? 0,
    items: span.seen?.items ?? 0,
    covered: span.seen?.seconds ?? 0,
    closing: false,
    startedAt: now,
  };
}

/** What the stream has seen, handed on to the streams that take over its rest: its density holds nearby too. */
export function seenBy(stream: Stream): Span['seen'] {
  return { pages: stream.pages, items: stream.items, seconds: stream.covered };
}

/** Epoch seconds the stream has yet to fetch: from its position down to the bottom of its last window. */
export function unfetched(stream: Pick<Stream, 'position' | 'windows'>): number {
  return stream.position - stream.windows.at(-1)!.lo;
}

/** The current window can be cut only where the stream covers it from its start and has paged into it. */
export function canSplit(
  stream: Pick<Stream, 'windows' | 'current' | 'pages' | 'position'>,
  splitAfterPages: number,
): boolean {
  const w = stream.windows[stream.current];
  return (
    w !== undefined &&
    stream.pages >= splitAfterPages &&
    w.lo === w.window.windowStart &&
    stream.position > w.window.windowStart &&
    stream.position < w.window.windowEnd
  );
}

/** The pass a stream makes over each of its windows: its whole range, from when it started. */
export function passOf(stream: Stream): PassSpec {
  return { passFrom: stream.from, passTo: stream.to, startedAt: stream.startedAt };
}
