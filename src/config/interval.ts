import { InputError, UserError, type InputSource } from '../errors.js';
import { isoForMessage, parseTime } from './parse-time.js';
import { TooManyWindowsError } from './too-many-windows-error.js';

declare const checked: unique symbol;

/**
 * A closed interval [from, to] of epoch seconds that parseInterval or
 * checkInterval let through: `from <= to`, and its grid of crawl windows fits
 * `crawl.maxWindows`. The crawl takes it as given and checks nothing again.
 */
export type Interval = { readonly from: number; readonly to: number } & { readonly [checked]: true };

/** The members of the crawl config that bound how many windows an interval may plan. */
export interface WindowGrid {
  /** Seconds of a crawl window (crawl.windowSeconds); windows are cells of a grid aligned to epoch 0. */
  windowSeconds: number;
  /** The most windows one plan may hold (crawl.maxWindows). */
  maxWindows: number;
}

/** How many cells of a grid of `size` seconds aligned to epoch 0 hold any time of [from, to], without building them. */
export function gridCellCount(from: number, to: number, size: number): number {
  return to < from ? 0 : Math.floor(to / size) - Math.floor(from / size) + 1;
}

/**
 * Refuses a plan of more windows than `maxWindows` before anything is listed
 * or written: every window costs a request and a row, and a time in
 * milliseconds or minute windows over years would plan millions of them.
 */
export function checkWindowCount(from: number, to: number, grid: WindowGrid): void {
  const windows = gridCellCount(from, to, grid.windowSeconds);
  if (windows > grid.maxWindows) {
    const { maxWindows, windowSeconds } = grid;
    throw new TooManyWindowsError({ from, to, windows, maxWindows, windowSeconds });
  }
}

/**
 * An interval given as epoch seconds by code (the library's `runBackfill`):
 * refused when it ends before it starts or plans more windows than the grid allows.
 */
export function checkInterval(from: number, to: number, grid: WindowGrid): Interval {
  if (!Number.isFinite(from) || !Number.isFinite(to)) {
    throw new UserError('BAD_INTERVAL', `the interval [${from}, ${to}] is not two times in epoch seconds`);
  }
  if (to < from) {
    const problem = `the interval ends (${isoForMessage(to)}) before it starts (${isoForMessage(from)})`;
    throw new UserError('BAD_INTERVAL', problem);
  }
  checkWindowCount(from, to, grid);
  return { from, to } as Interval;
}

/**
 * An interval a user typed, as two times (ISO 8601 or epoch seconds, see
 * parseTime) named by the flags they came from: each time is checked, the end
 * must not be before the start (`2025-01-01 is before --from 2025-02-01`, on
 * the end's flag), and the windows it plans must fit the grid. Each error
 * names the flag and the value, so the CLI shows it as one line.
 */
export function parseInterval(
  texts: { from: string; to: string },
  flags: { from: string; to: string },
  nowSeconds: number,
  grid: WindowGrid,
): Interval {
  const from = parseTime(texts.from, { kind: 'flag', name: flags.from }, nowSeconds);
  const to = parseTime(texts.to, { kind: 'flag', name: flags.to }, nowSeconds);
  if (to < from) throw reversed(texts, flags);
  return checkInterval(from, to, grid);
}

/** Bounds of which either may be left out: epoch seconds, or undefined for no bound. */
export interface Bounds {
  from: number | undefined;
  to: number | undefined;
}

/**
 * Bounds a user typed, either of which may be left out (`reset` and `verify`
 * take the whole stored history by default): each time given is checked, and
 * an end before the start is refused as parseInterval refuses it. They plan
 * no windows, so no grid bounds them.
 */
export function parseBounds(
  texts: { from?: string | undefined; to?: string | undefined },
  flags: { from: string; to: string },
  nowSeconds: number,
): Bounds {
  const time = (text: string | undefined, flag: string): number | undefined =>
    text === undefined ? undefined : parseTime(text, { kind: 'flag', name: flag }, nowSeconds);
  const from = time(texts.from, flags.from);
  const to = time(texts.to, flags.to);
  if (from !== undefined && to !== undefined && to < from) throw reversed(texts, flags);
  return { from, to };
}

function reversed(
  texts: { from?: string | undefined; to?: string | undefined },
  flags: { from: string; to: string },
): InputError {
  const source: InputSource = { kind: 'flag', name: flags.to };
  const problem = `${texts.to} is before ${flags.from} ${texts.from}`;
  return new InputError('BAD_INTERVAL', problem, { source, value: texts.to });
}
