import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type pinoPretty from 'pino-pretty';

const require = createRequire(import.meta.url);

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Where log lines go (stderr; results go to stdout). */
  destination: NodeJS.WritableStream & { isTTY?: boolean };
  /** Run id put on every line. */
  runId: string;
}

/**
 * JSON lines with the run id, or human-readable lines on a terminal. Secrets
 * are `Secret` objects that print as [redacted]; the redact paths are a second
 * line of defence for anything that carries raw headers.
 */
export function createLogger(options: LoggerOptions): Logger {
  // pino-pretty loads only for a terminal: cron and containers never need it.
  const stream = options.destination.isTTY
    ? (require('pino-pretty') as typeof pinoPretty)({ destination: options.destination, colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', sync: true })
    : options.destination;
  return pino(
    {
      level: options.level,
      base: { run: options.runId },
      redact: {
        paths: ['token', '*.token', 'secret', '*.secret', 'headers.authorization', '*.headers.authorization', 'authorization'],
        censor: '[redacted]',
      },
    },
    stream,
  );
}
