import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type pinoPretty from 'pino-pretty';

const require = createRequire(import.meta.url);

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Where log lines go (stderr; results go to stdout). */
  destination: NodeJS.WritableStream & { isTTY?: boolean };
  /** Put on every line: `run` (the id sync_runs holds), or `daemon` for the daemon's own records. */
  bindings: Readonly<Record<string, string>>;
  /** The time of each line (ms), injected like every clock. @default Date.now */
  clock?: () => number;
}

/**
 * On a terminal, one human-readable line per record. Elsewhere (cron, a
 * container, a pipe) one JSON object per line that log shippers read as is:
 * the level by name, the time in ISO 8601 UTC. Secrets are `Secret` objects
 * that print as [redacted]; the redact paths are a second line of defence for
 * anything that carries raw headers.
 */
export function createLogger(options: LoggerOptions): Logger {
  const clock = options.clock ?? Date.now;
  const redact = {
    paths: ['token', '*.token', 'secret', '*.secret', 'headers.authorization', '*.headers.authorization', 'authorization'],
    censor: '[redacted]',
  };
  if (options.destination.isTTY) {
    // pino-pretty loads only for a terminal: cron and containers never need it.
    const pretty = (require('pino-pretty') as typeof pinoPretty)({
      destination: options.destination,
      colorize: true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname',
      singleLine: true,
      sync: true,
    });
    return pino({ level: options.level, base: { ...options.bindings }, redact }, pretty);
  }
  return pino(
    {
      level: options.level,
      base: { ...options.bindings },
      redact,
      timestamp: () => `,"time":"${new Date(clock()).toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination,
  );
}
