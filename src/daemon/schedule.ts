import type { ScheduledTask } from 'node-cron';
import { nodeCron } from '../config/lazy-packages.js';
import { scheduleProblem, timezoneProblem } from '../config/check-schedule.js';
import { UserError } from '../errors.js';

/** The part of a logger the schedule uses (pino's shape). */
export interface ScheduleLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  debug(fields: Record<string, unknown>, message: string): void;
}

export interface ScheduleOptions {
  /** node-cron expression: 5 fields, or 6 with seconds first. */
  expression: string;
  /** IANA time zone the expression is read in. */
  timezone: string;
  /** One tick; the schedule never starts the next while this one runs. */
  onTick: (scheduledAt: Date) => Promise<void>;
  /** A tick came while the previous one still ran, and was skipped. */
  onSkipped: (scheduledAt: Date) => void;
  logger: ScheduleLogger;
}

/**
 * Throws a UserError naming what is wrong with an expression or time zone. The
 * config loader has checked both already, naming their source; this guards
 * callers that build a schedule themselves.
 */
export function checkSchedule(expression: string, timezone: string): void {
  const problem = scheduleProblem(expression);
  if (problem !== undefined) throw new UserError('BAD_SCHEDULE', `schedule ${problem}`);
  const zone = timezoneProblem(timezone);
  if (zone !== undefined) throw new UserError('BAD_TIMEZONE', `time zone ${zone}`);
}

/** The next `count` times the expression fires after now. */
export function nextRuns(expression: string, timezone: string, count: number): Date[] {
  checkSchedule(expression, timezone);
  const task = nodeCron().createTask(expression, () => undefined, { timezone });
  try {
    return task.getNextRuns(count);
  } finally {
    void task.destroy();
  }
}

/**
 * The gap of `*\/N * * * *` with N a divisor of 60 (the default schedule is one): every N minutes in any time
 * zone, since zones are whole minutes apart. Known without node-cron, which a sync or backfill would otherwise load
 * for its refresh settings alone (10 ms of its start).
 */
function everyFewMinutesMs(expression: string): number | undefined {
  const minutes = Number(/^\*\/(\d+) \* \* \* \*$/.exec(expression.trim())?.[1]);
  return minutes >= 1 && minutes <= 60 && 60 % minutes === 0 ? minutes * 60_000 : undefined;
}

/** The shortest gap between the next few ticks (irregular schedules have several). */
export function shortestGapMs(expression: string, timezone: string): number {
  const simple = everyFewMinutesMs(expression);
  if (simple !== undefined) return simple;
  const runs = nextRuns(expression, timezone, 8);
  let gap = Infinity;
  for (let i = 1; i < runs.length; i++) gap = Math.min(gap, runs[i]!.getTime() - runs[i - 1]!.getTime());
  return Number.isFinite(gap) ? gap : 60_000;
}

/**
 * A node-cron task with overlap prevention: node-cron 4's `noOverlap` skips a
 * tick while the previous execution's promise is pending, and emits
 * `execution:overlap`, which is logged here as a skipped tick.
 */
export class Schedule {
  readonly #task: ScheduledTask;

  constructor(options: ScheduleOptions) {
    checkSchedule(options.expression, options.timezone);
    const log = options.logger;
    this.#task = nodeCron().createTask(options.expression, (ctx) => options.onTick(ctx.date), {
      timezone: options.timezone,
      noOverlap: true,
      name: 'ivsync-sync',
      logger: {
        info: (message) => log.debug({}, message),
        warn: (message) => log.debug({}, message),
        error: (message) =>
          log.error({ err: message instanceof Error ? message.message : message }, 'scheduled run failed'),
        debug: (message) => log.debug({}, message instanceof Error ? message.message : message),
      },
    });
    this.#task.on('execution:overlap', (ctx) => options.onSkipped(ctx.date));
    this.#task.on('execution:missed', (ctx) =>
      log.warn({ scheduledAt: ctx.date.toISOString() }, 'tick missed: the event loop was blocked'),
    );
  }

  start(): void {
    void this.#task.start();
  }

  /** The next tick, or null when stopped. */
  nextRun(): Date | null {
    return this.#task.getNextRun();
  }

  /** No tick starts after this; a running one goes on (the caller stops it). */
  async stop(): Promise<void> {
    await this.#task.stop();
    await this.#task.destroy();
  }
}
