import { setTimeout as delay } from 'node:timers/promises';
import PQueue from 'p-queue';
import { InterruptedError } from '../errors.js';
import { toIsoMicros } from '../normalize/time.js';
import type { LeaseState, Sink } from '../store/sink.js';
import { LeaseHeldError } from './lease-held-error.js';
import { LeaseLostError } from './lease-lost-error.js';

/** The part of a logger the keeper uses (pino's shape). */
export interface LeaseLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface LeaseKeeperOptions {
  sink: Pick<Sink, 'acquireLease' | 'releaseLease' | 'abandonRuns'>;
  /** `host:pid:runId` of this process (see holderId). */
  holder: string;
  /**
   * A lease whose heartbeat is older than this is taken over: the holder
   * crashed or hangs. The heartbeat renews at a third of it.
   */
  ttlSeconds: number;
  /** Milliseconds since the epoch. */
  clock: () => number;
  logger: LeaseLogger;
  /**
   * True for a holder known to be dead (see deadOnThisHost): its lease is
   * taken over at once rather than after the ttl.
   * @default never
   */
  holderIsDead?: (holder: string) => boolean;
  /**
   * Milliseconds between attempts while waiting for a held lease.
   * @default a quarter of the ttl, at most 2000
   */
  pollMs?: number;
}

export interface HoldOptions {
  /** Wait until the lease is free (or stale) instead of failing with LeaseHeldError. */
  wait: boolean;
  /** Stops waiting (InterruptedError). */
  signal: AbortSignal;
}

/**
 * The leases one process holds in a target, with one heartbeat for all of
 * them. Holds are counted per name, so two runs of the same process (the
 * daemon's scheduled sync and its background backfill of one account) share
 * the lease, and it is released when the last of them ends.
 */
export class LeaseKeeper {
  readonly holder: string;
  readonly ttlSeconds: number;
  readonly #options: LeaseKeeperOptions;
  readonly #counts = new Map<string, number>();
  /** Per held lease: aborted with a LeaseLostError when another process takes it over. */
  readonly #losses = new Map<string, AbortController>();
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> = Promise.resolve();
  /**
   * The keeper's lease writes, one at a time in call order, so a renewal never lands after the release of its lease.
   */
  readonly #writes = new PQueue({ concurrency: 1 });

  constructor(options: LeaseKeeperOptions) {
    this.#options = options;
    this.holder = options.holder;
    this.ttlSeconds = options.ttlSeconds;
    if (!(this.ttlSeconds > 0)) throw new RangeError(`lease ttl must be > 0 seconds, got ${this.ttlSeconds}`);
  }

  /** True while this process holds `name`. */
  holds(name: string): boolean {
    return (this.#counts.get(name) ?? 0) > 0;
  }

  /**
   * Aborted, with a LeaseLostError as its reason, when another process takes
   * over one of `names` while this one holds it (a heartbeat finds it gone).
   * Every name must be held.
   */
  lossSignal(names: readonly string[]): AbortSignal {
    return AbortSignal.any(
      names.map((name) => {
        const loss = this.#losses.get(name);
        if (loss === undefined) throw new Error(`lossSignal: ${name} is not held`);
        return loss.signal;
      }),
    );
  }

  /**
   * Takes every lease in `names` (all or none) and returns the function that
   * gives them back. Throws LeaseHeldError naming the holder, or with `wait`
   * polls until they are free.
   */
  async hold(names: readonly string[], options: HoldOptions): Promise<() => Promise<void>> {
    const unique = [...new Set(names)];
    let announced = '';
    for (;;) {
      if (options.signal.aborted) throw new InterruptedError('stopped while waiting for a lease; nothing was synced');
      const taken: string[] = [];
      let refused: LeaseState | undefined;
      for (const name of unique) {
        if (this.holds(name)) {
          this.#counts.set(name, this.#counts.get(name)! + 1);
          taken.push(name);
          continue;
        }
        let state = await this.#acquire(name);
        if (state.tookOverFrom !== undefined)
          await this.#abandon(
            state.tookOverFrom,
            `its lease ${name} went without a heartbeat for ${this.ttlSeconds} s`,
          );
        if (!state.held && this.#options.holderIsDead?.(state.holder) === true) {
          const dead = state.holder;
          this.#options.logger.warn({ lease: name, holder: dead }, 'taking over the lease of a process that is gone');
          // Deletes the row only while the dead holder still has it; a live process that took it meanwhile keeps it.
          await this.#writes.add(() => this.#options.sink.releaseLease(name, dead));
          state = await this.#acquire(name);
          if (state.held)
            await this.#abandon(dead, `its process is gone from this host (found when taking over ${name})`);
        }
        if (!state.held) {
          refused = state;
          break;
        }
        this.#counts.set(name, 1);
        this.#losses.set(name, new AbortController());
        taken.push(name);
      }
      if (refused === undefined) {
        this.#startHeartbeat();
        let released = false;
        return async () => {
          if (released) return;
          released = true;
          await this.#release(taken);
        };
      }
      await this.#release(taken);
      if (!options.wait) throw new LeaseHeldError(refused);
      if (announced !== refused.holder) {
        announced = refused.holder;
        this.#options.logger.info(
          { lease: refused.name, holder: refused.holder, since: refused.acquiredAt },
          'waiting for the lease',
        );
      }
      // An abort ends the wait at once (its only rejection); the loop's first check turns it into InterruptedError.
      await delay(this.#pollMs(), undefined, { signal: options.signal }).catch(() => undefined);
    }
  }

  /** Stops the heartbeat and releases whatever is still held. */
  async close(): Promise<void> {
    this.#stopHeartbeat();
    await this.#beating;
    const names = [...this.#counts.keys()];
    this.#counts.clear();
    this.#losses.clear();
    for (const name of names) await this.#releaseOne(name);
  }

  /**
   * The runs of a holder whose lease this process took over died with it: shown as abandoned, never as running for
   * ever.
   */
  async #abandon(holder: string, how: string): Promise<void> {
    const at = toIsoMicros(this.#options.clock() / 1000);
    const runs = await this.#options.sink.abandonRuns(holder, at, `${how}; taken over by ${this.holder} at ${at}`);
    if (runs > 0) this.#options.logger.warn({ holder, runs }, 'runs of a process that died marked abandoned');
  }

  #pollMs(): number {
    return this.#options.pollMs ?? Math.min(2000, this.ttlSeconds * 250);
  }

  #acquire(name: string): Promise<LeaseState> {
    return this.#writes.add(() => this.#acquireNow(name));
  }

  #acquireNow(name: string): Promise<LeaseState> {
    return this.#options.sink.acquireLease(
      name,
      this.holder,
      this.ttlSeconds,
      toIsoMicros(this.#options.clock() / 1000),
    );
  }

  async #release(names: readonly string[]): Promise<void> {
    for (const name of names) {
      const count = (this.#counts.get(name) ?? 0) - 1;
      if (count > 0) {
        this.#counts.set(name, count);
        continue;
      }
      this.#counts.delete(name);
      this.#losses.delete(name);
      await this.#releaseOne(name);
    }
    if (this.#counts.size === 0) this.#stopHeartbeat();
  }

  async #releaseOne(name: string): Promise<void> {
    try {
      await this.#writes.add(() => this.#options.sink.releaseLease(name, this.holder));
    } catch (error) {
      // Not fatal: an unreleased lease goes stale and is taken over after the ttl.
      this.#options.logger.warn({ lease: name, err: (error as Error).message }, 'could not release the lease');
    }
  }

  #startHeartbeat(): void {
    if (this.#timer) return;
    this.#timer = setInterval(
      () => {
        this.#beating = this.#beat();
      },
      (this.ttlSeconds * 1000) / 3,
    );
    // The runs keep the process alive; the heartbeat alone must not.
    this.#timer.unref();
  }

  #stopHeartbeat(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #beat(): Promise<void> {
    for (const name of [...this.#counts.keys()]) {
      try {
        // A lease released since the beat began is skipped: acquiring it again would insert it back.
        const state = await this.#writes.add(async () => (this.holds(name) ? this.#acquireNow(name) : undefined));
        const loss = this.#losses.get(name);
        if (state !== undefined && !state.held && loss !== undefined && !loss.signal.aborted) {
          this.#options.logger.error(
            { lease: name, holder: state.holder },
            'lease lost: this process missed its heartbeats and another took the lease over',
          );
          loss.abort(new LeaseLostError(name, state.holder));
        }
      } catch (error) {
        this.#options.logger.warn(
          { lease: name, err: (error as Error).message },
          'lease heartbeat failed; retrying at the next beat',
        );
      }
    }
  }
}
