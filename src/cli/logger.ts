import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type pinoPretty from 'pino-pretty';
import { readableLine } from './readable-line.js';

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

/** Levels at which a terminal line shows every field of a record, as --verbose asks. */
const DETAILED = new Set(['trace', 'debug']);

/**
 * On a terminal, one human-readable line per record: its message and its
 * short plain fields (readable-line.ts); at debug level every field. Elsewhere (cron, a
 * container, a pipe) one JSON object per line that log shippers read as is:
 * the level by name, the time in ISO 8601 UTC. Secrets are `Secret` objects
 * that print as [redacted]; the redact paths are a second line of defence for
 * anything that carries raw headers.
 */
export function createLogger(options: LoggerOptions): Logger {
  const clock = options.clock ?? Date.now;
  const redact = {
    paths: [
      'token',
      '*.token',
      'secret',
      '*.secret',
      'headers.authorization',
      '*.headers.authorization',
      'authorization',
    ],
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
      // The object hidden, the line is one anyway; pino-pretty 13 ends a line only when singleLine is off or an object
      // follows.
      ...(DETAILED.has(options.level)
        ? {}
        : {
            hideObject: true,
            singleLine: false,
            messageFormat: (record: Record<string, unknown>, key: string) => readableLine(record, key),
          }),
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
