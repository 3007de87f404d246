import { toIsoMicros } from '../normalize/time.js';
import { UserError } from '../errors.js';
import { outcomeOf, type RunEnding, type RunOutcome } from './run-outcome.js';

/** A run asked for on demand; `from`/`to` as ISO 8601 or epoch seconds. */
export interface RunRequest {
  account: string;
  command: 'sync' | 'backfill' | 'verify';
  from?: string | number | undefined;
  to?: string | number | undefined;
}

/** A run started on demand, as this process knows it while it lives. */
export interface LiveRun {
  id: string;
  account: string;
  command: RunRequest['command'];
  state: 'running' | 'succeeded' | 'failed' | 'interrupted' | 'held';
  requestedAt: string;
  finishedAt: string | null;
  error: string | null;
  /** The run's report once it ended (the same JSON as the command's `--json`). */
  report: unknown;
}

export type StartResult =
  | { ok: true; id: string }
  | { ok: false; status: 409; holder: string; error: string }
  | { ok: false; status: 400 | 404; error: string };

/** What `POST /runs` starts runs through, and `GET /runs/:id` reads: the daemon's queue and leases. */
export interface RunStarter {
  start(request: RunRequest): Promise<StartResult>;
  get(id: string): LiveRun | undefined;
}

/** How a run on demand ended, with the report its command prints with `--json`. */
export interface OnDemandEnding {
  ending: RunEnding;
  report: unknown;
}

export interface OnDemandRunsOptions {
  /** The configured accounts a run may name. */
  accounts: readonly string[];
  /** The live holder of the account's lease (this process included), or undefined when it is free. */
  holderOf: (account: string) => Promise<string | undefined>;
  /**
   * Checks the request and returns the run to start (a bad `from`/`to`
   * throws a UserError, answered 400 before anything starts). The run holds
   * the account's lease as scheduled runs do, and reports how it ended.
   */
  prepare: (request: RunRequest, runId: string) => () => Promise<OnDemandEnding>;
  newId: () => string;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** Told how each run ended (the daemon's counters). */
  onFinished?:
    | ((run: { command: RunRequest['command']; account: string; outcome: RunOutcome; ending: RunEnding }) => void)
    | undefined;
  /** Finished runs remembered for `GET /runs/:id`; older ones are read from the tables alone. @default 200 */
  keep?: number;
}

/**
 * The runs `POST /runs` starts: at most one per account at a time, in this
 * process and across every process that shares the target (the account's
 * lease); a request for a busy account is refused with the holder's name.
 */
export class OnDemandRuns implements RunStarter {
  readonly #o: OnDemandRunsOptions;
  readonly #runs = new Map<string, LiveRun>();
  /** account -> id of its run under way. */
  readonly #busy = new Map<string, string>();
  readonly #settled = new Set<Promise<void>>();

  constructor(options: OnDemandRunsOptions) {
    this.#o = options;
  }

  /** Whether a run on demand holds `account` now: the scheduled tick leaves it alone. */
  busy(account: string): boolean {
    return this.#busy.has(account);
  }

  get(id: string): LiveRun | undefined {
    return this.#runs.get(id);
  }

  /** Resolves when no run started here is under way. */
  async idle(): Promise<void> {
    while (this.#settled.size > 0) await Promise.allSettled([...this.#settled]);
  }

  async start(request: RunRequest): Promise<StartResult> {
    const { account, command } = request;
    if (!this.#o.accounts.includes(account))
      return { ok: false, status: 404, error: `no account ${account} is configured (${this.#o.accounts.join(', ')})` };
    const under = this.#busy.get(account);
    if (under !== undefined)
      return {
        ok: false,
        status: 409,
        holder: `run ${under} of this daemon`,
        error: `${account} is busy with run ${under}`,
      };
    const id = this.#o.newId();
    let run: () => Promise<OnDemandEnding>;
    try {
      run = this.#o.prepare(request, id);
    } catch (error) {
      if (error instanceof UserError) return { ok: false, status: 400, error: error.message };
      throw error;
    }
    // Taken before the lease is looked at: two requests at once cannot both pass.
    this.#busy.set(account, id);
    const holder = await this.#o.holderOf(account).catch((error: unknown) => {
      this.#busy.delete(account);
      throw error;
    });
    if (holder !== undefined) {
      this.#busy.delete(account);
      return { ok: false, status: 409, holder, error: `the lease of ${account} is held by ${holder}` };
    }
    const live: LiveRun = {
      id,
      account,
      command,
      state: 'running',
      requestedAt: this.#now(),
      finishedAt: null,
      error: null,
      report: null,
    };
    this.#remember(live);
    const done = run()
      .then(
        ({ ending, report }) => this.#end(live, ending, report),
        (error: unknown) =>
          this.#end(live, { status: 'failed', error: error instanceof Error ? error : new Error(String(error)) }, null),
      )
      .finally(() => {
        this.#busy.delete(account);
        this.#settled.delete(done);
      });
    this.#settled.add(done);
    return { ok: true, id };
  }

  #end(live: LiveRun, ending: RunEnding, report: unknown): void {
    const failed =
      ending.status === 'succeeded' ? undefined : outcomeOf(ending.error ?? new Error(`run ${ending.status}`));
    const outcome: RunOutcome =
      failed === undefined
        ? { status: 'succeeded' }
        : failed.status === 'failed'
          ? { ...failed, runId: live.id }
          : failed;
    live.state = outcome.status;
    live.error =
      outcome.status === 'held' ? `the lease was held by ${outcome.holder}` : (ending.error?.message ?? null);
    live.finishedAt = this.#now();
    live.report = report;
    this.#o.onFinished?.({ command: live.command, account: live.account, outcome, ending });
  }

  #remember(live: LiveRun): void {
    this.#runs.set(live.id, live);
    const keep = this.#o.keep ?? 200;
    for (const [id, run] of this.#runs) {
      if (this.#runs.size <= keep) break;
      if (run.state !== 'running') this.#runs.delete(id);
    }
  }

  #now(): string {
    return toIsoMicros(this.#o.clock() / 1000);
  }
}
