import { hostname } from 'node:os';
import type { Config } from '../config/config.js';
import { LeaseKeeper } from '../daemon/lease-keeper.js';
import { accountLease, holderId } from '../daemon/lease-names.js';
import { localHolderIsDead } from './local-holder.js';
import { InterruptedError } from '../errors.js';
import { toIsoMicros } from '../normalize/time.js';
import type { Sink } from '../store/sink.js';
import type { Logger } from './logger.js';
import { loggerFor, newRunId, openTarget, type CliIo } from './runtime.js';

export interface RunScope {
  runId: string;
  /** The command's io, its signal also aborted when another process takes over a lease of the run. */
  io: CliIo;
  sink: Sink;
  logger: Logger;
  /** Set by the body so the run row records them. */
  tally: { requests: number; itemsWritten: number };
}

/** The accounts a crawling run works on: it holds their leases in the target while it runs. */
export interface LeaseRequest {
  accounts: readonly string[];
  /** Wait for a lease another process holds instead of failing. */
  wait: boolean;
  /** Heartbeat age after which a lease counts as abandoned (ignored inside the daemon, which has its own). */
  ttlSeconds: number;
}

/**
 * Opens the target, takes the leases of the accounts (one process syncs an
 * account into a target at a time, whatever started it), records the run in
 * `sync_runs`, runs the body, records how it ended (succeeded, failed with its
 * one-line error, or interrupted), and gives back the leases and closes the
 * target whatever happens. A refused lease records no run: nothing ran. A lease
 * lost during the run (another process took it over) stops the body like a
 * signal, and the run fails with the LeaseLostError.
 */
export async function withRun<T>(
  command: string,
  config: Config,
  io: CliIo,
  account: string | null,
  body: (scope: RunScope) => Promise<T>,
  lease?: LeaseRequest,
): Promise<T> {
  const runId = newRunId();
  const logger = loggerFor(config, io, runId);
  const host = io.host;
  const sink = host?.sink ?? (await openTarget(config));
  const tally = { requests: 0, itemsWritten: 0 };
  const now = () => toIsoMicros(io.clock() / 1000);
  // Inside the daemon the clients live across runs and count from its start;
  // a run records only its own requests (with a backfill running beside a
  // sync of the same account, the two share the count of that client).
  const baseline = host ? (lease?.accounts ?? []).reduce((n, name) => n + (host.accounts.get(name)?.client.stats.requests ?? 0), 0) : 0;
  const keeper =
    host?.leases ??
    (lease ? new LeaseKeeper({ sink, holder: holderId(hostname(), process.pid, runId), ttlSeconds: lease.ttlSeconds, clock: io.clock, logger, holderIsDead: localHolderIsDead() }) : undefined);
  try {
    const names = lease?.accounts.map(accountLease) ?? [];
    const release = lease && keeper ? await keeper.hold(names, { wait: lease.wait, signal: io.signal }) : async () => undefined;
    const lost = keeper && names.length > 0 ? keeper.lossSignal(names) : undefined;
    const runIo = lost ? { ...io, signal: AbortSignal.any([io.signal, lost]) } : io;
    try {
      await sink.startRun({ id: runId, command, startedAt: now(), account });
      // In the daemon many runs share one log: this line ties a run id to its holder.
      if (host) logger.info({ command, account, holder: keeper?.holder }, 'run started');
      try {
        const result = await body({ runId, io: runIo, sink, logger, tally });
        await sink.finishRun(runId, { finishedAt: now(), status: 'succeeded', requests: Math.max(0, tally.requests - baseline), itemsWritten: tally.itemsWritten, error: null });
        host?.onRunEnd?.(command, 'succeeded');
        return result;
      } catch (thrown) {
        // Stopped because the lease went: that is the cause to report, not the interruption it caused.
        const error: unknown = lost?.aborted === true ? lost.reason : thrown;
        const interrupted = error instanceof InterruptedError;
        await sink.finishRun(runId, {
          finishedAt: now(),
          status: interrupted ? 'interrupted' : 'failed',
          requests: Math.max(0, tally.requests - baseline),
          itemsWritten: tally.itemsWritten,
          error: error instanceof Error ? error.message : String(error),
        });
        host?.onRunEnd?.(command, interrupted ? 'interrupted' : 'failed');
        throw error;
      }
    } finally {
      await release();
    }
  } finally {
    if (keeper && keeper !== host?.leases) await keeper.close();
    if (!host) await sink.close();
  }
}
