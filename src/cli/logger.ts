import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

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
  const stream = options.destination.isTTY
    ? pretty({ destination: options.destination, colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', sync: true })
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
