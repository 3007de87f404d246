import { isoForMessage as iso } from './parse-time.js';
import { InputError } from '../errors.js';

/**
 * A plan of more windows than `crawl.maxWindows`: refused before any window is
 * listed or written. A usage mistake (exit 2): the interval and the window size
 * the user chose do not fit, and nothing has run.
 */
export class TooManyWindowsError extends InputError {
  readonly windows: number;
  readonly maxWindows: number;
  readonly windowSeconds: number;

  constructor(facts: { from: number; to: number; windows: number; maxWindows: number; windowSeconds: number }) {
    super(
      'TOO_MANY_WINDOWS',
      `${iso(facts.from)} to ${iso(facts.to)} is ${facts.windows.toLocaleString('en')} windows of ` +
        `${facts.windowSeconds} s, more than crawl.maxWindows (${facts.maxWindows.toLocaleString('en')}): ` +
        'set a larger crawl.windowSeconds (dense windows are split while paging anyway), a shorter interval, ' +
        'or a larger crawl.maxWindows',
    );
    this.windows = facts.windows;
    this.maxWindows = facts.maxWindows;
    this.windowSeconds = facts.windowSeconds;
  }
}
