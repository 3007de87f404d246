import type { RequestEvent } from '../api/service-client.js';
import type { AccountConfig, Config } from '../config/config.js';
import type { CrawlEvent } from '../crawl/engine/crawl-deps.js';
import type { RunDeps } from '../crawl/runs/run-deps.js';
import { openApp } from '../app/open-app.js';
import { InputError } from '../errors.js';
import { createLogger, type Logger } from './logger.js';

export { newRunId } from '../crawl/runs/run-recorder.js';

/** What a command gets from the process: its streams, environment, stop signal and clock. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  /** The signal that aborted `signal`, once one did: the CLI says what it does about it. */
  signalName?: () => string | undefined;
  clock: () => number;
}

/** The logger of a command: its lines carry the id of its run, or the daemon's id for the daemon's own records. */
export function loggerFor(config: Config, io: CliIo, id: string | { daemon: string }): Logger {
  return createLogger({
    level: config.logLevel,
    destination: io.stderr,
    bindings: typeof id === 'string' ? { run: id } : id,
    clock: io.clock,
  });
}

/** The accounts to work on: all, or the one `--account` names. */
export function selectAccounts(config: Config, only: string | undefined): AccountConfig[] {
  if (only === undefined) return [...config.accounts];
  const found = config.accounts.filter((a) => a.name === only);
  if (found.length === 0) {
    throw new InputError(
      'UNKNOWN_ACCOUNT',
      `no account '${only}' in the configuration (known: ${config.accounts.map((a) => a.name).join(', ')})`,
      {
        source: { kind: 'flag', name: '--account' },
        value: only,
      },
    );
  }
  return found;
}

/**
 * For one crawling command: opens the process (src/app/open-app.ts) for the
 * accounts, gives the body its RunDeps, then gives back the leases and closes
 * the target and the clients, whatever happens.
 */
export async function withRunDeps<T>(
  config: Config,
  io: CliIo,
  accounts: readonly AccountConfig[],
  options: {
    runId: string;
    logger: Logger;
    ttlSeconds: number;
    onEvent?: (event: CrawlEvent) => void;
    /** Every request attempt of the run's clients, for progress. */
    onRequest?: (account: string, event: RequestEvent) => void;
    existing?: boolean;
    wait?: boolean;
  },
  body: (deps: RunDeps) => Promise<T>,
): Promise<T> {
  const app = await openApp(config, {
    accounts,
    logger: options.logger,
    id: options.runId,
    leaseTtlSeconds: options.ttlSeconds,
    clock: io.clock,
    signal: io.signal,
    onEvent: options.onEvent,
    onRequest: options.onRequest,
    existing: options.existing,
    wait: options.wait,
  });
  try {
    return await body(app.deps);
  } finally {
    await app.close();
  }
}
