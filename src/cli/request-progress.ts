import type CliProgress from 'cli-progress';
import { cliProgress } from '../config/lazy-packages.js';
import type { Logger } from './logger.js';

export interface RequestProgressOptions {
  /** A bar on a terminal; a structured log line every `intervalSeconds` elsewhere. */
  tty: boolean;
  stream: NodeJS.WritableStream;
  logger: Logger;
  /** The most requests the command may send (verify's --budget): the bar's end. */
  budget: number;
  /** What the requests do, for the log line: `verify`. */
  label: string;
  /** @default 10 */
  intervalSeconds?: number;
}

/**
 * Progress of a command that spends a request budget (verify): requests sent
 * against the budget. verify pages a sample that fits the budget, so the
 * requests are the work; it may end below the budget when the sample was
 * smaller, and the bar then ends where it stopped.
 */
export class RequestProgress {
  readonly #options: RequestProgressOptions;
  readonly #bar: CliProgress.SingleBar | undefined;
  readonly #timer: NodeJS.Timeout | undefined;
  #requests = 0;

  constructor(options: RequestProgressOptions) {
    this.#options = options;
    if (options.tty) {
      const { SingleBar, Presets } = cliProgress();
      this.#bar = new SingleBar(
        {
          stream: options.stream,
          format: ' {bar} {value} of at most {total} requests',
          hideCursor: true,
          clearOnComplete: false,
        },
        Presets.shades_classic,
      );
      this.#bar.start(Math.max(1, options.budget), 0);
    } else {
      this.#timer = setInterval(() => this.#line(), (options.intervalSeconds ?? 10) * 1000);
      this.#timer.unref();
    }
  }

  get requests(): number {
    return this.#requests;
  }

  /** One request sent (a retry too: it spends the budget as well). */
  onRequest = (): void => {
    this.#requests += 1;
    this.#bar?.update(Math.min(this.#requests, this.#options.budget));
  };

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#bar?.stop();
  }

  #line(): void {
    this.#options.logger.info(
      { requests: this.#requests, budget: this.#options.budget },
      `${this.#options.label} progress`,
    );
  }
}
