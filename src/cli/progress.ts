import cliProgress from 'cli-progress';
import type { BackfillPlanSummary, CrawlEvent } from '../crawl/engine/crawl-deps.js';
import type { Logger } from './logger.js';

export interface ProgressOptions {
  /** A bar on a terminal; structured log lines elsewhere. */
  tty: boolean;
  stream: NodeJS.WritableStream;
  logger: Logger;
  clock: () => number;
  /** Seconds between progress lines when not on a terminal. @default 10 */
  intervalSeconds?: number;
}

/** Where the progress stands, in epoch seconds of the interval. */
export interface ProgressState {
  /** Nothing started (no plan yet), `nothing` (the plan was empty), or `running`. */
  phase: 'idle' | 'nothing' | 'running';
  total: number;
  covered: number;
}

/** What the plan leaves to do: the whole interval, and the part of it already paged by an earlier run. */
export function planExtent(plans: readonly BackfillPlanSummary[]): { windows: number; todo: number; totalSeconds: number; doneSeconds: number } {
  const sum = (pick: (p: BackfillPlanSummary) => number) => plans.reduce((n, p) => n + pick(p), 0);
  const totalSeconds = sum((p) => p.totalSeconds);
  return { windows: sum((p) => p.windows), todo: sum((p) => p.todo), totalSeconds, doneSeconds: Math.max(0, totalSeconds - sum((p) => p.seconds)) };
}

/**
 * Backfill progress: items, pages per second and an ETA. The ETA is by
 * epoch-seconds covered (pages come newest first inside each window), which
 * needs no item count up front. A resumed run starts at the part earlier
 * runs paged; its ETA counts only what this run has done.
 */
export class Progress {
  readonly #options: ProgressOptions;
  readonly #startedAt: number;
  #phase: ProgressState['phase'] = 'idle';
  #pages = 0;
  #bar: cliProgress.SingleBar | undefined;
  #timer: NodeJS.Timeout | undefined;
  #total = 0;
  #startCovered = 0;
  #covered = 0;
  #items = 0;
  #rejected = 0;

  constructor(options: ProgressOptions) {
    this.#options = options;
    this.#startedAt = options.clock();
  }

  get state(): ProgressState {
    return { phase: this.#phase, total: this.#total, covered: this.#covered };
  }

  /** Starts at `doneSeconds` of `totalSeconds`; with nothing to do, says so instead of drawing an empty bar. */
  start(totalSeconds: number, doneSeconds = 0, todo = 1): void {
    if (todo === 0 || totalSeconds - doneSeconds <= 0) {
      this.#phase = 'nothing';
      return;
    }
    this.#phase = 'running';
    this.#total = Math.max(1, totalSeconds);
    this.#covered = this.#startCovered = Math.min(this.#total, Math.max(0, doneSeconds));
    if (this.#options.tty) {
      this.#bar = new cliProgress.SingleBar(
        {
          stream: this.#options.stream,
          format: ' {bar} {percentage}% | {items} items | {pps} pages/s | ETA {eta_formatted}',
          hideCursor: true,
          clearOnComplete: false,
          // A moving average over the last updates, recomputed while pages are slow to come, so one fast or stalled page does not swing it.
          etaBuffer: 100,
          etaAsynchronousUpdate: true,
        },
        cliProgress.Presets.shades_classic,
      );
      this.#bar.start(this.#total, this.#covered, this.#payload());
    } else {
      this.#timer = setInterval(() => this.#line('progress'), (this.#options.intervalSeconds ?? 10) * 1000);
      this.#timer.unref();
    }
  }

  onEvent = (event: CrawlEvent): void => {
    if (event.type === 'backfill-plan') {
      const extent = planExtent(event.plans);
      this.start(extent.totalSeconds, extent.doneSeconds, extent.todo);
      return;
    }
    if (event.type !== 'page' || this.#phase !== 'running') return;
    this.#pages += 1;
    this.#covered = Math.min(this.#total, this.#covered + event.covered);
    this.#items += event.items;
    this.#rejected += event.rejected;
    this.#bar?.update(this.#covered, this.#payload());
  };

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#bar) {
      this.#bar.update(this.#covered, this.#payload());
      this.#bar.stop();
    }
  }

  /** Pages committed per second: what the user waits for (requests include retries). */
  #rate(): number {
    const seconds = (this.#options.clock() - this.#startedAt) / 1000;
    return seconds > 0 ? this.#pages / seconds : 0;
  }

  #payload(): Record<string, string | number> {
    return { items: this.#items, pps: this.#rate().toFixed(1) };
  }

  #line(msg: string): void {
    const elapsed = (this.#options.clock() - this.#startedAt) / 1000;
    // Only what this run covered measures its speed: a resumed run did not page the rest.
    const remaining = this.#total - this.#covered;
    const gained = this.#covered - this.#startCovered;
    const eta = gained > 0 ? Math.round((elapsed / gained) * remaining) : null;
    this.#options.logger.info(
      {
        items: this.#items,
        rejected: this.#rejected,
        pagesPerSecond: Number(this.#rate().toFixed(2)),
        percent: Math.round((this.#covered / this.#total) * 1000) / 10,
        etaSeconds: eta,
      },
      msg,
    );
  }
}
