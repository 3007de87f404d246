import cliProgress from 'cli-progress';
import type { CrawlEvent } from '../crawl/crawl-deps.js';
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

/**
 * Backfill progress: items, requests per second and an ETA. The ETA is by
 * epoch-seconds covered (pages come newest first inside each window), which
 * needs no item count up front.
 */
export class Progress {
  readonly #options: ProgressOptions;
  readonly #startedAt: number;
  #pages = 0;
  #bar: cliProgress.SingleBar | undefined;
  #timer: NodeJS.Timeout | undefined;
  #total = 0;
  #covered = 0;
  #items = 0;
  #rejected = 0;

  constructor(options: ProgressOptions) {
    this.#options = options;
    this.#startedAt = options.clock();
  }

  start(totalSeconds: number): void {
    this.#total = Math.max(1, totalSeconds);
    if (this.#options.tty) {
      this.#bar = new cliProgress.SingleBar(
        {
          stream: this.#options.stream,
          format: ' {bar} {percentage}% | {items} items | {pps} pages/s | ETA {eta_formatted}',
          hideCursor: true,
          clearOnComplete: false,
          etaBuffer: 50,
        },
        cliProgress.Presets.shades_classic,
      );
      this.#bar.start(this.#total, 0, this.#payload());
    } else {
      this.#timer = setInterval(() => this.#line('progress'), (this.#options.intervalSeconds ?? 10) * 1000);
      this.#timer.unref();
    }
  }

  onEvent = (event: CrawlEvent): void => {
    if (event.type === 'backfill-plan') {
      this.start(event.plans.reduce((n, p) => n + p.seconds, 0));
      return;
    }
    if (event.type !== 'page') return;
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
    const share = this.#covered / this.#total;
    const eta = share > 0 ? Math.round((elapsed / share) * (1 - share)) : null;
    this.#options.logger.info(
      { items: this.#items, rejected: this.#rejected, pagesPerSecond: Number(this.#rate().toFixed(2)), percent: Math.round(share * 1000) / 10, etaSeconds: eta },
      msg,
    );
  }
}
