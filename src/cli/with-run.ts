import type { Config } from '../config/config.js';
import { InterruptedError } from '../errors.js';
import { toIsoMicros } from '../normalize/time.js';
import type { Sink } from '../store/sink.js';
import type { Logger } from './logger.js';
import { loggerFor, newRunId, openTarget, type CliIo } from './runtime.js';

export interface RunScope {
  runId: string;
  sink: Sink;
  logger: Logger;
  /** Set by the body so the run row records them. */
  tally: { requests: number; itemsWritten: number };
}

/**
 * Opens the target, records the run in `sync_runs`, runs the body, records how
 * it ended (succeeded, failed with its one-line error, or interrupted) and
 * closes the target whatever happens.
 */
export async function withRun<T>(
  command: string,
  config: Config,
  io: CliIo,
  account: string | null,
  body: (scope: RunScope) => Promise<T>,
): Promise<T> {
  const runId = newRunId();
  const logger = loggerFor(config, io, runId);
  const sink = await openTarget(config);
  const tally = { requests: 0, itemsWritten: 0 };
  const now = () => toIsoMicros(io.clock() / 1000);
  try {
    await sink.startRun({ id: runId, command, startedAt: now(), account });
    try {
      const result = await body({ runId, sink, logger, tally });
      await sink.finishRun(runId, { finishedAt: now(), status: 'succeeded', requests: tally.requests, itemsWritten: tally.itemsWritten, error: null });
      return result;
    } catch (error) {
      const interrupted = error instanceof InterruptedError;
      await sink.finishRun(runId, {
        finishedAt: now(),
        status: interrupted ? 'interrupted' : 'failed',
        requests: tally.requests,
        itemsWritten: tally.itemsWritten,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  } finally {
    await sink.close();
  }
}
