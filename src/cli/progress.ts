import type CliProgress from 'cli-progress';
import { cliProgress } from '../config/lazy-packages.js';
import type { BackfillPlanSummary, CrawlEvent } from '../crawl/engine/crawl-deps.js';
import type { Logger } from './logger.js';
import { estimateTotalPages, formatEta, shownFraction, smoothedEta } from './progress-estimate.js';

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
export function planExtent(plans: readonly BackfillPlanSummary[]): {
  windows: number;
  todo: number;
  totalSeconds: number;
  doneSeconds: number;
} {
  const sum = (pick: (p: BackfillPlanSummary) => number) => plans.reduce((n, p) => n + pick(p), 0);
  const totalSeconds = sum((p) => p.totalSeconds);
  return {
    windows: sum((p) => p.windows),
    todo: sum((p) => p.todo),
    totalSeconds,
    doneSeconds: Math.max(0, totalSeconds - sum((p) => p.seconds)),
  };
}

/** Steps of the bar: a tenth of a percent. */
const STEPS = 1000;
/** Seconds of a run before its rate says enough for an ETA. */
const ETA_AFTER_SECONDS = 2;

/**
 * Backfill progress: pages against an estimate of the pages the run will
 * take, which improves as windows finish (progress-estimate.ts), pages per
 * second, and a smoothed ETA that counts down between pages. The ETA is
 * left out until the rate says something, never shown as a placeholder. A
 * resumed run starts at the part earlier runs paged; its estimate counts
 * only what this run does.
 */
export class Progress {
  readonly #options: ProgressOptions;
  readonly #startedAt: number;
  #phase: ProgressState['phase'] = 'idle';
  #pages = 0;
  #bar: CliProgress.SingleBar | undefined;
  #timer: NodeJS.Timeout | undefined;
  #total = 0;
  #covered = 0;
  #startCovered = 0;
  #items = 0;
  #rejected = 0;
  /** The latest estimate of pages left, of each account's crawl. */
  readonly #pagesLeft = new Map<string, number | null>();
  /** The run ended with every window paged: only then does the bar show 100%. */
  #completed = false;
  #shown = 0;
  #eta: number | undefined;
  #etaAt = 0;

  constructor(options: ProgressOptions) {
    this.#options = options;
    this.#startedAt = options.clock();
    this.#etaAt = this.#startedAt;
  }

  get state(): ProgressState {
    return { phase: this.#phase, total: this.#total, covered: this.#covered };
  }

  /** What the bar shows now: the percentage and the ETA part (empty until a rate is known). */
  get shown(): { pct: string; etaText: string } {
    const { pct, etaText } = this.#payload();
    return { pct: String(pct), etaText: String(etaText) };
  }

  /**
   * Starts at `doneSeconds` of `totalSeconds` with `todo` windows to page; with nothing to do, says so instead of
   * drawing an empty bar.
   */
  start(totalSeconds: number, doneSeconds = 0, todo = 1): void {
    if (todo === 0 || totalSeconds - doneSeconds <= 0) {
      this.#phase = 'nothing';
      return;
    }
    this.#phase = 'running';
    this.#total = Math.max(1, totalSeconds);
    this.#covered = this.#startCovered = Math.min(this.#total, Math.max(0, doneSeconds));
    if (this.#options.tty) {
      const { SingleBar, Presets } = cliProgress();
      this.#bar = new SingleBar(
        {
          stream: this.#options.stream,
          format: ' {bar} {pct}% | {items} items | {pps} pages/s{etaText}',
          hideCursor: true,
          clearOnComplete: false,
        },
        Presets.shades_classic,
      );
      this.#bar.start(STEPS, Math.round(this.#overall * STEPS), this.#payload());
      // The ETA counts down while pages are slow to come (a 429 pause, a slow service).
      this.#timer = setInterval(() => this.#bar?.update(Math.round(this.#overall * STEPS), this.#payload()), 1000);
    } else {
      this.#timer = setInterval(() => this.#line('progress'), (this.#options.intervalSeconds ?? 10) * 1000);
    }
    this.#timer.unref();
  }

  onEvent = (event: CrawlEvent): void => {
    if (event.type === 'backfill-plan') {
      const extent = planExtent(event.plans);
      this.start(extent.totalSeconds, extent.doneSeconds, extent.todo);
      return;
    }
    if (this.#phase !== 'running') return;
    if (event.type !== 'page') return;
    this.#pages += 1;
    this.#covered = Math.min(this.#total, this.#covered + event.covered);
    this.#items += event.items;
    this.#rejected += event.rejected;
    this.#pagesLeft.set(event.account, event.pagesLeft);
    this.#advance();
    this.#bar?.update(Math.round(this.#overall * STEPS), this.#payload());
  };

  /** Ends the bar; `completed` when the run paged every window (an interrupted one stays where it stopped). */
  stop(completed = false): void {
    this.#completed = completed;
    if (this.#timer) clearInterval(this.#timer);
    if (this.#phase === 'running') this.#advance();
    if (this.#bar) {
      this.#bar.update(Math.round(this.#overall * STEPS), this.#payload());
      this.#bar.stop();
    }
  }

  /**
   * The whole backfill's fraction: what earlier runs paged (as a share of the
   * interval, fixed at the start) and this run's estimated part of the rest.
   */
  get #overall(): number {
    const prior = this.#startCovered / this.#total;
    return prior + (1 - prior) * this.#shown;
  }

  /** Every window of the run paged (told by stop). */
  get #done(): boolean {
    // Counting the windows' passes is no end: a window split or paged again ends more than one pass.
    return this.#completed;
  }

  /** Moves this run's shown fraction and the ETA on with what the pages so far say. */
  #advance(): void {
    const estimate = estimateTotalPages(this.#pages, this.#pagesLeft.values());
    this.#shown = shownFraction(this.#shown, this.#pages, estimate, this.#done);
    const now = this.#options.clock();
    const elapsed = (now - this.#startedAt) / 1000;
    const rate = elapsed >= ETA_AFTER_SECONDS ? this.#pages / elapsed : 0;
    this.#eta = this.#done
      ? 0
      : smoothedEta(
          this.#eta,
          (now - this.#etaAt) / 1000,
          estimate === undefined ? undefined : estimate - this.#pages,
          rate,
        );
    this.#etaAt = now;
  }

  /** Pages committed per second: what the user waits for (requests include retries). */
  #rate(): number {
    const seconds = (this.#options.clock() - this.#startedAt) / 1000;
    return seconds > 0 ? this.#pages / seconds : 0;
  }

  #payload(): Record<string, string | number> {
    // Counted down to now, between pages too.
    const eta =
      this.#eta === undefined ? undefined : Math.max(0, this.#eta - (this.#options.clock() - this.#etaAt) / 1000);
    return {
      items: this.#items,
      pps: this.#rate().toFixed(1),
      pct: (this.#overall * 100).toFixed(this.#overall < 0.1 ? 1 : 0),
      etaText: eta === undefined ? '' : ` | ETA ${formatEta(eta)}`,
    };
  }

  #line(msg: string): void {
    this.#advance();
    this.#options.logger.info(
      {
        items: this.#items,
        rejected: this.#rejected,
        pagesPerSecond: Number(this.#rate().toFixed(2)),
        percent: Math.round(this.#overall * 1000) / 10,
        etaSeconds: this.#eta === undefined ? null : Math.round(this.#eta),
      },
      msg,
    );
  }
}
