import type { ScheduledTask } from 'node-cron';
import { nodeCron } from '../config/lazy-packages.js';
import type { Cadence } from '../config/parse-cadence.js';

/**
 * Whether an account's verify is due: for a period, when none started within
 * it; for a cron expression, when the expression fired since the last one
 * started. Times in milliseconds; the last start is read from verify_runs, so
 * it holds across restarts and for every daemon sharing the target.
 */
export function verifyDue(
  cadence: Cadence,
  lastStartMs: number | null,
  nowMs: number,
  lastFireMs: number | null,
): boolean {
  if (cadence.kind === 'every') return lastStartMs === null || nowMs - lastStartMs >= cadence.seconds * 1000;
  return lastFireMs !== null && (lastStartMs === null || lastStartMs < lastFireMs);
}

export interface VerifyCadenceOptions {
  cadence: Cadence;
  /** IANA time zone a cron expression is read in (the daemon's). */
  timezone: string;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** When the last verify covering the account started (verify_runs), or null. */
  lastStart: (account: string) => Promise<string | null>;
}

/**
 * When the daemon verifies each account. A verify runs right after the
 * account's scheduled sync, in the same tick and under the same claim, so it
 * never runs beside a sync of that account; a cron expression only marks
 * when one is due.
 */
export class VerifyCadence {
  readonly #o: VerifyCadenceOptions;
  #task: ScheduledTask | undefined;
  #lastFire: number | null = null;

  constructor(options: VerifyCadenceOptions) {
    this.#o = options;
  }

  start(): void {
    if (this.#o.cadence.kind !== 'cron' || this.#task !== undefined) return;
    this.#task = nodeCron().createTask(
      this.#o.cadence.expression,
      (ctx) => {
        this.#lastFire = ctx.date.getTime();
      },
      { timezone: this.#o.timezone, name: 'ivsync-verify' },
    );
    void this.#task.start();
  }

  async stop(): Promise<void> {
    await this.#task?.stop();
    await this.#task?.destroy();
    this.#task = undefined;
  }

  async due(account: string): Promise<boolean> {
    const last = await this.#o.lastStart(account);
    return verifyDue(this.#o.cadence, last === null ? null : Date.parse(last), this.#o.clock(), this.#lastFire);
  }
}
