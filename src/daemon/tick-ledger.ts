import { toIsoMicros } from '../normalize/time.js';
import { crashBackoffMs, type CrashBackoffOptions } from './crash-backoff.js';
import { healthOf, type Health, type HealthFacts } from './daemon-health.js';
import type { RunOutcome } from './run-outcome.js';
import type { ScheduleLogger } from './schedule.js';

export interface TickLedgerOptions {
  clock: () => number;
  logger: ScheduleLogger;
  /** @default threshold 3, base 60 s, cap 30 min */
  backoff?: CrashBackoffOptions | undefined;
}

/**
 * What the daemon remembers between ticks: how the last one ended, the failed
 * ticks in a row and the crash-loop backoff they started, for /healthz and for
 * the next tick's decision to run or hold back.
 */
export class TickLedger {
  readonly #o: TickLedgerOptions;
  #facts: HealthFacts = { lastTick: null, running: false, backoffUntil: null, stopping: false };
  #failuresInARow = 0;
  #running = 0;

  constructor(options: TickLedgerOptions) {
    this.#o = options;
  }

  health(): Health {
    return healthOf(this.#facts);
  }

  get stopping(): boolean {
    return this.#facts.stopping;
  }

  get backoffUntil(): string | null {
    return this.#facts.backoffUntil;
  }

  get failuresInARow(): number {
    return this.#failuresInARow;
  }

  markStopping(): void {
    this.#facts = { ...this.#facts, stopping: true };
  }

  /** What the webhook stream means for the refresh, as of the last tick. */
  markWebhooks(webhooks: string): void {
    this.#facts = { ...this.#facts, webhooks };
  }

  /** A tick starts running: any backoff it waited out is over. */
  tickStarted(): void {
    this.#running++;
    this.#facts = { ...this.#facts, running: true, backoffUntil: null };
  }

  tickEnded(): void {
    this.#running--;
    this.#facts = { ...this.#facts, running: this.#running > 0 };
  }

  /** Records a tick's outcomes for /healthz and the backoff; returns its failures as one line, or null. */
  record(outcomes: ReadonlyMap<string, RunOutcome>): string | null {
    const { logger, clock } = this.#o;
    const finishedAt = toIsoMicros(clock() / 1000);
    const failed = [...outcomes].filter(
      (e): e is [string, Extract<RunOutcome, { status: 'failed' }>] => e[1].status === 'failed',
    );
    for (const [account, outcome] of outcomes) {
      if (outcome.status === 'held')
        logger.info({ account, holder: outcome.holder }, 'account left to the process that holds its lease this tick');
    }
    if (failed.length > 0) {
      this.#failuresInARow++;
      const error = failed.map(([account, o]) => `${account}: ${o.error}`).join('; ');
      this.#facts = { ...this.#facts, lastTick: { ok: false, finishedAt, error } };
      const wait = crashBackoffMs(this.#failuresInARow, this.#o.backoff);
      if (wait > 0) {
        const until = toIsoMicros((clock() + wait) / 1000);
        this.#facts = { ...this.#facts, backoffUntil: until };
        const runs = failed.flatMap(([, o]) => (o.runId !== undefined ? [o.runId] : []));
        logger.error(
          { failuresInARow: this.#failuresInARow, runs, backoffSeconds: wait / 1000, until, lastError: error },
          `crash loop: ${this.#failuresInARow} failed runs in a row (${error}); backing off until ${until}`,
        );
      } else {
        // One record per run, under the run's own id (the one `sync_runs` holds); a run that never started has none.
        for (const [account, o] of failed)
          logger.error(
            {
              account,
              ...(o.runId !== undefined ? { run: o.runId } : {}),
              failuresInARow: this.#failuresInARow,
              lastError: o.error,
            },
            'run failed',
          );
      }
      return error;
    }
    if ([...outcomes.values()].some((o) => o.status === 'succeeded')) {
      this.#failuresInARow = 0;
      this.#facts = { ...this.#facts, lastTick: { ok: true, finishedAt } };
    }
    return null;
  }
}
