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
  /**
   * Pages seen, and the items and epoch seconds of the last few (item-density.ts, `afterPage`): this stream's, and
   * those of the stream it came from.
   */
  pages: number;
  items: number;
  covered: number;
  /** Being split: nothing more is cut from it. */
  closing: boolean;
  /** A page of its own came back: what its range holds is more than a guess. */
  answered: boolean;
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
    answered: false,
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

/**
 * The open streams a cut may take from, the largest expected rest first (what
 * is left to fetch at its `density`, items per second). Once a page of the
 * crawl is back (`answered`), only those that had a page of their own: the
 * rest of one still waiting on its first is the resource's density over its
 * range, a guess that the history is as dense there as where pages came from.
 * A backfill from long before an account's first session (a month of
 * sessions in three years, at 1 s) cut such streams again and again, each
 * part one more request for an empty range.
 */
export function cutCandidates(
  streams: Iterable<Stream>,
  answered: boolean,
  density: (stream: Stream) => number,
): Stream[] {
  const rest = (s: Stream) => unfetched(s) * density(s);
  const open = [...streams].filter((s) => !s.closing && (s.answered || !answered));
  return open.sort((a, b) => rest(b) - rest(a));
}

/** The pass a stream makes over each of its windows: its whole range, from when it started. */
export function passOf(stream: Stream): PassSpec {
  return { passFrom: stream.from, passTo: stream.to, startedAt: stream.startedAt };
}
