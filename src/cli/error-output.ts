import { InputError, InterruptedError, IvsyncError, type InputSource } from '../errors.js';
import { EXIT } from './command.js';
import { oneLine } from './one-line.js';

/** What the CLI says about an error, and the exit code it ends with. */
export interface ErrorReport {
  exit: number;
  code: string;
  message: string;
  /** Where a bad input came from, for scripts reading `--json` errors. */
  source?: InputSource;
  value?: unknown;
  /** Only for bugs, only with --verbose. */
  stack?: string;
}

/** The code of a mistake the parser itself found (unknown flag, missing option). */
export const USAGE = 'USAGE';

/**
 * Every usage mistake exits 2, whether the parser or a later check found it
 * (an InputError); an interruption 3; anything else 1. A bug's stack is shown
 * only with --verbose. The message is always one short line (see one-line.ts).
 */
export function reportError(error: unknown, verbose: boolean): ErrorReport {
  const report = describeError(error, verbose);
  return { ...report, message: oneLine(report.message) };
}

function describeError(error: unknown, verbose: boolean): ErrorReport {
  if (error instanceof InputError) {
    return {
      exit: EXIT.usage,
      code: error.code,
      message: error.message,
      ...(error.source !== undefined ? { source: error.source } : {}),
      ...(error.value !== undefined ? { value: error.value } : {}),
    };
  }
  if (error instanceof InterruptedError) return { exit: EXIT.interrupted, code: error.code, message: error.message };
  if (error instanceof IvsyncError) return { exit: EXIT.failure, code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  const stack = verbose && error instanceof Error && error.stack ? { stack: error.stack } : {};
  return { exit: EXIT.failure, code: 'INTERNAL', message, ...stack };
}

/** What a JSON line on stderr carries besides its message: when, and the run (or daemon) it belongs to. */
export interface RecordContext {
  time: string;
  run?: string;
  daemon?: string;
}

/**
 * One line on stderr: on a terminal `ivsync: message`; elsewhere, or with
 * --json, a JSON record like the log lines (level, ISO time, run id) whose
 * `error` holds the code, message and source for scripts. A stack (a bug,
 * with --verbose) follows on the lines after it in text.
 */
export function renderError(report: ErrorReport, record: RecordContext | undefined): string {
  if (record) {
    const error = {
      code: report.code,
      message: report.message,
      ...(report.source ? { source: report.source } : {}),
      ...(report.value !== undefined ? { value: report.value } : {}),
      ...(report.stack ? { stack: report.stack } : {}),
    };
    return `${JSON.stringify({ level: 'error', ...record, msg: report.message, error })}\n`;
  }
  const text = report.stack ?? report.message;
  const hint = report.code === USAGE ? '\n(see ivsync --help, or ivsync COMMAND --help)' : '';
  return `ivsync: ${text}${hint}\n`;
}

/** Back to the start of the line and clear it: a progress bar drawn there would otherwise run into the notice. */
const CLEAR_LINE = '\r\u001b[2K';

/**
 * What the first SIGINT/SIGTERM does (`doing`, the command's onStop), said
 * once: the second one stops at once. On a terminal it takes the progress
 * bar's line for itself (the bar draws again on the next line), rather than
 * being appended to the bar.
 */
export function renderSignalNotice(signal: string, record: RecordContext | undefined, doing: string): string {
  const message = `${signal}: ${doing} (again to stop at once)`;
  if (record) return `${JSON.stringify({ level: 'warn', ...record, signal, msg: message })}\n`;
  return `${CLEAR_LINE}ivsync: ${message}\n`;
}

/** Whether the command line asks for JSON output: read before parsing, since a parse error must honour it too. */
export function wantsJson(argv: readonly string[]): boolean {
  let json = false;
  for (const arg of argv) {
    if (arg === '--') break;
    if (arg === '--json' || arg === '--json=true') json = true;
    if (arg === '--no-json' || arg === '--json=false') json = false;
  }
  return json;
}
