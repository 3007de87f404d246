import { setTimeout as delay } from 'node:timers/promises';
import { toIsoMicros } from '../normalize/time.js';
import type { Sink } from '../store/sink.js';
import { backfillResumeMs, type CrashBackoffOptions } from './crash-backoff.js';
import type { Health } from './daemon-health.js';
import { fairShare, shuffle, tickClaimTtlSeconds } from './fair-share.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { accountLease, DAEMON_LEASE_PREFIX, daemonLease, tickLease } from '../store/leases/lease-names.js';
import { Schedule, shortestGapMs, type ScheduleLogger } from './schedule.js';
import { scheduleGroups } from './schedule-groups.js';
import { outcomeOf, settle, type RunEnding, type RunOutcome } from './run-outcome.js';
import { TickLedger } from './tick-ledger.js';

export { outcomeOf, type RunEnding, type RunOutcome } from './run-outcome.js';

/** What the daemon reports for metrics. */
export interface DaemonObserver {
  tickSkipped(reason: 'overlap' | 'backoff' | 'stopping'): void;
  /** Every run's outcome, whatever ended it: the target down, the service, the token. */
  runFinished(command: 'sync' | 'backfill' | 'verify', status: RunOutcome['status']): void;
  /** After every tick, with the target's windows and high-water marks. */
  observe(report: Awaited<ReturnType<Sink['status']>>): void;
  /** Every run's outcome with its account (null: the background backfill, of every account); for the alerts. */
  runEnded?(run: { command: 'sync' | 'backfill' | 'verify'; account: string | null; outcome: RunOutcome }): void;
  /** After every tick that ran: ticks in a row with a failed run, and the backoff that started, if any. */
  tickRecorded?(tick: TickRecord): void;
}

export interface TickRecord {
  failedTicksInARow: number;
  backoffUntil: string | null;
  /** The failures of the tick, by account; null when none failed. */
  error: string | null;
}

export interface DaemonOptions {
  /** Account names, in configuration order. */
  accounts: readonly string[];
  sink: Pick<Sink, 'acquireLease' | 'releaseLease' | 'leases' | 'status'>;
  /** This process's leases; its holder is this daemon's identity. */
  leases: LeaseKeeper;
  schedule: { expression: string; timezone: string };
  /**
   * Accounts synced on a schedule of their own (`accounts[].schedule`); the
   * others follow `schedule`. Each schedule ticks for its accounts alone.
   * @default none
   */
  accountSchedules?: ReadonlyMap<string, { expression: string; timezone: string }> | undefined;
  /**
   * One account's incremental sync, under the account's lease; rejects when it could not start (lease held, target
   * down).
   */
  runSync: (account: string) => Promise<RunEnding>;
  /** The background backfill, if asked for; runs concurrently with the ticks. */
  runBackfill?: (() => Promise<RunEnding>) | undefined;
  /**
   * An account's verify, run right after its sync of a tick when `due` says
   * so: in the tick, never beside a sync of the account. Its outcome is
   * counted, but drift or a failed verify neither fails the tick nor backs off.
   */
  verify?: { due(account: string): Promise<boolean>; run(account: string): Promise<RunEnding> } | undefined;
  /** Aborted on SIGINT/SIGTERM: no new tick starts, runs commit their pages in flight. */
  signal: AbortSignal;
  clock: () => number;
  /** Shuffles the claim order, so daemons do not all reach for the same account first. */
  random: () => number;
  logger: ScheduleLogger;
  observer: DaemonObserver;
  /** What the webhook stream means for the refresh, from the status after a tick (for /healthz). @default none */
  webhookStream?: ((report: Awaited<ReturnType<Sink['status']>>) => string) | undefined;
  /** @default threshold 3, base 60 s, cap 30 min */
  backoff?: CrashBackoffOptions;
  /**
   * How long a daemon that claimed its share waits before claiming accounts no
   * daemon claimed this tick (their daemon died).
   * @default a quarter of the shortest gap between ticks
   */
  claimGraceMs?: number;
  /**
   * How long a stop waits for runs to commit their pages in flight before
   * closing anyway (a page not committed is fetched again on the next start).
   * @default 8000
   */
  stopDeadlineMs?: number;
}

/** One schedule's task and the accounts its ticks claim. */
interface TickGroup {
  readonly expression: string;
  readonly accounts: readonly string[];
  readonly schedule: Schedule;
  readonly claimTtl: number;
  readonly graceMs: number;
}

/**
 * Runs `sync` for every account on a cron schedule (the daemon's, or the
 * account's own: one task per distinct schedule). Per tick, each account's
 * sync is claimed by exactly one daemon of all that share the target (the
 * `tick:<account>` lease), runs under the account's lease, and a daemon that
 * crashes leaves its accounts to the others once its leases go stale.
 */
export class Daemon {
  readonly #o: DaemonOptions;
  readonly #groups: readonly TickGroup[];
  readonly #ledger: TickLedger;
  /** Ticks in flight, of every schedule: a stop waits for them. */
  readonly #ticks = new Set<Promise<void>>();
  #backfill: Promise<void> = Promise.resolve();
  #releaseRegistration: (() => Promise<void>) | undefined;
  #stopped: Promise<void> | undefined;

  constructor(options: DaemonOptions) {
    this.#o = options;
    this.#ledger = new TickLedger({ clock: options.clock, logger: options.logger, backoff: options.backoff });
    this.#groups = scheduleGroups(options.accounts, options.schedule, options.accountSchedules).map((g) => {
      const gap = shortestGapMs(g.expression, g.timezone);
      const group: TickGroup = {
        expression: g.expression,
        accounts: g.accounts,
        claimTtl: tickClaimTtlSeconds(gap),
        graceMs: options.claimGraceMs ?? gap / 4,
        // node-cron's noOverlap holds this schedule's next tick while one runs: an account never runs twice at once.
        schedule: new Schedule({
          expression: g.expression,
          timezone: g.timezone,
          logger: options.logger,
          onTick: (at) => this.#track(this.#runTick(group, at)),
          onSkipped: (at) => {
            options.observer.tickSkipped('overlap');
            const fields = { scheduledAt: at.toISOString(), accounts: g.accounts };
            options.logger.warn(fields, 'tick skipped: the previous run is still going');
          },
        }),
      };
      return group;
    });
  }

  #track(tick: Promise<void>): Promise<void> {
    this.#ticks.add(tick);
    void tick.finally(() => this.#ticks.delete(tick));
    return tick;
  }

  health(): Health {
    return this.#ledger.health();
  }

  /** The next scheduled tick, or null once stopping. */
  nextRun(): Date | null {
    if (this.#ledger.stopping) return null;
    const next = this.#groups.map((g) => g.schedule.nextRun()).filter((d): d is Date => d !== null);
    return next.length === 0 ? null : new Date(Math.min(...next.map((d) => d.getTime())));
  }

  /** Starts the schedule (and the backfill); resolves when the daemon has stopped. */
  async run(): Promise<void> {
    const { leases, signal, logger } = this.#o;
    this.#releaseRegistration = await leases.hold([daemonLease(leases.holder)], { wait: false, signal });
    if (this.#o.runBackfill) this.#backfill = this.#keepBackfilling(this.#o.runBackfill);
    for (const g of this.#groups) g.schedule.start();
    const schedules = this.#groups.map((g) => ({ schedule: g.expression, accounts: g.accounts }));
    const { expression, timezone } = this.#o.schedule;
    const nextRun = this.nextRun()?.toISOString();
    const more = schedules.length > 1 ? { schedules } : {};
    logger.info({ schedule: expression, timezone, nextRun, accounts: this.#o.accounts, ...more }, 'daemon started');
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await this.stop();
  }

  /**
   * The background backfill, resumed after a failure (the target down past
   * its retries, the service) or a lease another process took over, after a
   * back-off that starts at the schedule's gap: its checkpoints make every
   * resume continue where the last attempt committed. Only success or a stop
   * ends it.
   */
  async #keepBackfilling(run: () => Promise<RunEnding>): Promise<void> {
    const { logger, signal } = this.#o;
    const gap = shortestGapMs(this.#o.schedule.expression, this.#o.schedule.timezone);
    for (let failures = 1; ; failures++) {
      const outcome = await settle(run());
      this.#finished('backfill', outcome, null);
      if (outcome.status === 'succeeded') {
        logger.info({}, 'background backfill complete');
        return;
      }
      if (outcome.status === 'interrupted' || signal.aborted) return;
      const waitMs = backfillResumeMs(failures, gap);
      const reason =
        outcome.status === 'held' ? `another process took its account over (${outcome.holder})` : outcome.error;
      const message = `background backfill stopped: ${reason}; resuming it in ${waitMs / 1000} s`;
      logger.warn({ failures, resumeInSeconds: waitMs / 1000, reason }, message);
      // An abort ends the pause at once (its only rejection).
      await delay(waitMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
    }
  }

  /** Stops scheduling, lets the runs in flight commit, and gives the leases back. Idempotent. */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    const { logger } = this.#o;
    this.#ledger.markStopping();
    await Promise.all(this.#groups.map((g) => g.schedule.stop()));
    const deadline = this.#o.stopDeadlineMs ?? 8_000;
    let timer: NodeJS.Timeout | undefined;
    const settled = await Promise.race([
      Promise.all([...this.#ticks, this.#backfill]).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), deadline))),
    ]);
    clearTimeout(timer);
    if (!settled)
      logger.warn(
        { deadlineMs: deadline },
        'runs still in flight at the stop deadline; their uncommitted pages are fetched again on the next start',
      );
    await this.#releaseRegistration?.();
    logger.info({}, 'daemon stopped');
  }

  async #runTick(group: TickGroup, scheduledAt: Date): Promise<void> {
    const { logger, observer, clock } = this.#o;
    if (this.#ledger.stopping) {
      observer.tickSkipped('stopping');
      return;
    }
    const until = this.#ledger.backoffUntil;
    if (until !== null && Date.parse(until) > clock()) {
      observer.tickSkipped('backoff');
      logger.info(
        { scheduledAt: scheduledAt.toISOString(), backoffUntil: until },
        'tick skipped: backing off after repeated failures',
      );
      return;
    }
    this.#ledger.tickStarted();
    try {
      let outcomes: Map<string, RunOutcome>;
      try {
        outcomes = await this.#claimAndRun(group, scheduledAt);
      } catch (error) {
        // Claiming itself failed (the target is down): every account's run of this tick failed.
        const failed = outcomeOf(error);
        outcomes = new Map(group.accounts.map((account) => [account, failed]));
        for (const account of group.accounts) this.#finished('sync', outcomes.get(account)!, account);
      }
      const error = this.#ledger.record(outcomes);
      const { backoffUntil, failuresInARow } = this.#ledger;
      observer.tickRecorded?.({ failedTicksInARow: failuresInARow, backoffUntil, error });
      try {
        // The metrics read windows, marks and freshness, not the tables' rows, whose count grows with the history.
        const report = await this.#o.sink.status({ tables: false });
        observer.observe(report);
        if (this.#o.webhookStream) this.#ledger.markWebhooks(this.#o.webhookStream(report));
      } catch (error) {
        logger.warn({ err: (error as Error).message }, 'could not read the target status for the metrics');
      }
    } finally {
      this.#ledger.tickEnded();
    }
  }

  async #claimAndRun(group: TickGroup, scheduledAt: Date): Promise<Map<string, RunOutcome>> {
    const { leases, random, signal } = this.#o;
    const { accounts } = group;
    const claim = (account: string) => this.#claim(account, scheduledAt, group.claimTtl);
    const outcomes = new Map<string, RunOutcome>();
    const runs: Array<Promise<void>> = [];
    const start = (account: string): void => {
      runs.push(
        settle(this.#o.runSync(account)).then(async (outcome) => {
          outcomes.set(account, outcome);
          this.#finished('sync', outcome, account);
          if (outcome.status === 'succeeded' || outcome.status === 'failed') await this.#verifyIfDue(account);
        }),
      );
    };
    const order = shuffle(accounts, random);
    const share = fairShare(accounts.length, await this.#liveDaemons());
    // An account whose lease this process holds already (its background
    // backfill) is synced here every tick: any other daemon would be refused.
    const own = order.filter((a) => leases.holds(accountLease(a)));
    for (const account of own) {
      await claim(account);
      start(account);
    }
    const started = new Set(own);
    for (const account of order) {
      if (started.size >= share || signal.aborted) break;
      if (started.has(account)) continue;
      if (await claim(account)) {
        started.add(account);
        start(account);
      }
    }
    if (started.size < accounts.length && !signal.aborted) {
      // An abort ends the pause at once (its only rejection); the loop below then starts nothing.
      await delay(group.graceMs, undefined, { signal }).catch(() => undefined);
      for (const account of order) {
        if (started.has(account) || signal.aborted) continue;
        if (await claim(account)) {
          started.add(account);
          start(account);
        }
      }
    }
    this.#o.logger.debug({ scheduledAt: scheduledAt.toISOString(), share, accounts: [...started] }, 'tick claimed');
    await Promise.all(runs);
    return outcomes;
  }

  async #verifyIfDue(account: string): Promise<void> {
    const verify = this.#o.verify;
    if (verify === undefined || this.#o.signal.aborted) return;
    try {
      if (!(await verify.due(account))) return;
    } catch (error) {
      this.#o.logger.warn(
        { account, err: (error as Error).message },
        'could not tell whether a verify is due; trying again next tick',
      );
      return;
    }
    this.#finished('verify', await settle(verify.run(account)), account);
  }

  /** Counts a run that ran or tried to; a lease held by another process means this one did not try. */
  #finished(command: 'sync' | 'backfill' | 'verify', outcome: RunOutcome, account: string | null): void {
    if (outcome.status !== 'held') this.#o.observer.runFinished(command, outcome.status);
    this.#o.observer.runEnded?.({ command, account, outcome });
  }

  /**
   * Claims `account` for the tick scheduled at `scheduledAt`. The claim is
   * stamped with the tick's scheduled time, not the time of the attempt, so
   * every daemon of one tick sees the same claim live however late its own
   * attempt comes (a loaded host, a slow target), and the next tick finds it stale.
   */
  async #claim(account: string, scheduledAt: Date, ttlSeconds: number): Promise<boolean> {
    const stamp = toIsoMicros(scheduledAt.getTime() / 1000);
    const state = await this.#o.sink.acquireLease(tickLease(account), this.#o.leases.holder, ttlSeconds, stamp);
    return state.held;
  }

  /** Daemons whose registration heartbeat is live (this one included); forgets long-dead ones. */
  async #liveDaemons(): Promise<number> {
    const now = this.#o.clock();
    const ttlMs = this.#o.leases.ttlSeconds * 1000;
    let live = 0;
    for (const lease of await this.#o.sink.leases()) {
      if (!lease.name.startsWith(DAEMON_LEASE_PREFIX)) continue;
      const age = now - Date.parse(lease.heartbeatAt);
      if (age <= ttlMs) live++;
      else if (age > 10 * ttlMs) await this.#o.sink.releaseLease(lease.name, lease.holder);
    }
    return Math.max(1, live);
  }
}
